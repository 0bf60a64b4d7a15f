/**
 * The tag hierarchy (docs/catalog.md "Tag hierarchy"). The upstream relates tags without saying which is
 * the broader one; the rank says it. Tags are ranked: category tags first (a tag whose slug is a
 * category's slug), then more events, then the lower numeric id. Of two related tags (a relation in
 * either direction), the higher-ranked one is the parent side. A tag's children are its related tags
 * ranked below it, in rank order; its parent is its highest-ranked related tag ranked above it (null: a
 * top-level tag).
 */

export interface RankedTagInput {
  id: string;
  slug: string;
  /** Events carrying the tag. */
  eventCount: number;
  /** Its slug is a category's slug. */
  isCategory: boolean;
}

export interface TagPlace {
  parentSlug: string | null;
  /** Child slugs in rank order. */
  children: string[];
}

/** Numeric ids compare as numbers (any length); a non-numeric id sorts after every numeric one. */
function compareIds(a: string, b: string): number {
  const na = /^\d+$/.test(a);
  const nb = /^\d+$/.test(b);
  if (na && nb) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (na !== nb) return na ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Rank order: category tags first, then more events, then lower id. */
export function compareTagRank(a: RankedTagInput, b: RankedTagInput): number {
  if (a.isCategory !== b.isCategory) return a.isCategory ? -1 : 1;
  if (a.eventCount !== b.eventCount) return b.eventCount - a.eventCount;
  return compareIds(a.id, b.id);
}

/**
 * Each tag's place (by tag id) from the relations (pairs of tag ids, either direction; pairs naming an
 * unknown tag or a tag itself are ignored).
 */
export function tagHierarchy(
  tags: readonly RankedTagInput[],
  relations: readonly (readonly [string, string])[],
): Map<string, TagPlace> {
  const ranked = [...tags].sort(compareTagRank);
  const rank = new Map(ranked.map((t, i) => [t.id, i]));
  const related = new Map<string, Set<string>>(ranked.map((t) => [t.id, new Set()]));
  for (const [a, b] of relations) {
    if (a === b || !rank.has(a) || !rank.has(b)) continue;
    related.get(a)!.add(b);
    related.get(b)!.add(a);
  }
  const out = new Map<string, TagPlace>();
  for (const t of ranked) {
    const mine = rank.get(t.id)!;
    const others = [...related.get(t.id)!].sort((x, y) => rank.get(x)! - rank.get(y)!);
    const above = others.filter((o) => rank.get(o)! < mine);
    const below = others.filter((o) => rank.get(o)! > mine);
    out.set(t.id, {
      parentSlug: above.length > 0 ? ranked[rank.get(above[0]!)!]!.slug : null,
      children: below.map((o) => ranked[rank.get(o)!]!.slug),
    });
  }
  return out;
}
