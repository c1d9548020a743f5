/**
 * Turns a sentence the user said about themselves into one the assistant says back:
 * "my sister's birthday is on March 3" → "your sister's birthday is on March 3".
 */
const SWAPS: Array<[RegExp, string]> = [
  [/\bI am\b/g, 'you are'],
  [/\bI'm\b/g, "you're"],
  [/\bI've\b/g, "you've"],
  [/\bI'll\b/g, "you'll"],
  [/\bI'd\b/g, "you'd"],
  [/\bI was\b/g, 'you were'],
  [/\bmyself\b/gi, 'yourself'],
  [/\bmine\b/gi, 'yours'],
  [/\bmy\b/gi, 'your'],
  [/\bme\b/gi, 'you'],
  [/\bI\b/g, 'you'],
];

/** Replacements are lower-case; callers capitalise the start of the sentence they build. */
export function toSecondPerson(sentence: string): string {
  return SWAPS.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), sentence);
}

export function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function asSentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** "a", "a and b", "a, b and c". */
export function joinAnd(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
