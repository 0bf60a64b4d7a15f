/**
 * The words of a title, label or search query, one normalization for both sides of a text search: the
 * catalog build stores a title's words (`words` columns of migration 030) and the API splits a `search`
 * or `q` parameter with the same function. A word is a maximal run of letters and digits, NFKD-folded
 * (accents dropped) and lowercased; the result keeps first occurrences in order, without duplicates.
 */
const WORD = /[\p{L}\p{N}]+/gu;
const MARKS = /\p{M}+/gu;

export function searchWords(text: string): string[] {
  const folded = text.normalize('NFKD').replace(MARKS, '').toLowerCase();
  return [...new Set(folded.match(WORD) ?? [])];
}
