/**
 * Text search over the catalog lists (events, markets, tags; `search` and `q` parameters): the query is
 * split into words by the same function that split the titles at build time (core/search-words.ts), and
 * a row matches when every query word begins one of its title's words (`bitc` finds "Bitcoin", all
 * words required, any order). The relevance rank of a matching row is 2 per query word found whole in
 * the title, plus 1 when the title begins with the query's words in order; `relevance` sorts by it,
 * then as `volume_all_time` (docs/catalog.md "Search").
 */
import { searchWords } from '../../../core/search-words.ts';
import { ApiError } from '../../errors.ts';
import type { Condition } from '../../read/where.ts';

/** The words of a search parameter (its length already checked by the schema); none → 400 naming it. */
export function parseSearch(raw: string | undefined, param: string): string[] | undefined {
  if (raw === undefined) return undefined;
  const words = searchWords(raw);
  if (words.length === 0) {
    throw new ApiError(400, `${param} must contain at least one letter or digit`);
  }
  return words;
}

/** Bound parameters of the match condition and the rank expression. */
export function searchParams(words: readonly string[]): Record<string, unknown> {
  return { search_words: words, search_phrase: words.join(' ') };
}

/** Every query word begins a word of `column` (an Array(String) of title words). */
export function searchWhere(words: readonly string[], column = 'words'): Condition {
  return {
    sql: `arrayAll(q -> arrayExists(w -> startsWith(w, q), ${column}), {search_words:Array(String)})`,
    params: searchParams(words),
  };
}

/** The relevance rank of a matching row (UInt64); binds searchParams. */
export function relevanceExpr(column = 'words'): string {
  return `toUInt64(arrayCount(q -> has(${column}, q), {search_words:Array(String)}) * 2
    + startsWith(arrayStringConcat(${column}, ' '), {search_phrase:String}))`;
}
