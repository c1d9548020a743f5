import type { Learned, VocabularyKind } from '@assistant/tool-kit';

/**
 * What the built-in model knows of an account's own values — its senders, event titles, file names, devices,
 * connections, memories — so that "the garage" finds `garage@kwikfix.example` and "packing list" finds
 * `packing-list.txt`. It learns them for free from the results its tools already return (each family says what
 * a result shows, `FamilyIntents.learn`): no extra call to any server. Kept in this process only, bounded per
 * kind and per account, and looked up through an index of words, so that a look-up costs the words of the
 * request, not the size of the account.
 */

interface Entry {
  value: string;
  /** How many stems it is indexed under: an entry whose every word the request names is found. */
  stems: number;
  /** The entry's words, lowercased and joined, for the look-up of a word inside a compound ("doctors"). */
  joined: string;
  seq: number;
}

/** Words that tell values apart no better than chance. */
const NOISE = new Set(
  'the a an of and my our com org net www info mail email noreply no reply co uk de fr io app ltd inc gmbh llc txt md'.split(
    ' ',
  ),
);

/** The words of a label or a value, lowercased, without plurals' "s": "Acme Plumbing Ltd." → acme, plumbing. */
export function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 1 && !NOISE.has(word))
    .map((word) => (word.length > 3 && word.endsWith('s') ? word.slice(0, -1) : word));
}

/** A word's stem for the index: its first five letters ("plumber" and "plumbing" are both "plumb"). */
const stemOf = (word: string) => (word.length > 5 ? word.slice(0, 5) : word);

class KindIndex {
  private readonly entries = new Map<string, Entry>();
  private readonly byWord = new Map<string, Set<Entry>>();
  private seq = 0;

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  add(value: string, label: string): void {
    const existing = this.entries.get(value);
    if (existing) {
      existing.seq = ++this.seq; // Seen again: the most recent wins a tie.
      return;
    }
    if (this.entries.size >= this.capacity) this.evictOldest();
    const words = [...new Set([...wordsOf(label), ...wordsOf(value)])];
    const stems = [...new Set(words.map(stemOf))];
    const named = new Set(wordsOf(label).map(stemOf));
    const entry: Entry = { value, stems: named.size, joined: words.join(' '), seq: ++this.seq };
    this.entries.set(value, entry);
    for (const stem of stems) {
      let set = this.byWord.get(stem);
      if (!set) this.byWord.set(stem, (set = new Set()));
      set.add(entry);
    }
  }

  private evictOldest(): void {
    const [value, entry] = this.entries.entries().next().value as [string, Entry];
    this.entries.delete(value);
    for (const word of entry.joined.split(' ')) this.byWord.get(stemOf(word))?.delete(entry);
  }

  /**
   * The value whose words cover most of the request's words (all of them, or all but one of three or more);
   * a word found only inside a compound ("doctor" in "citydoctors") counts when no entry has it whole.
   */
  find(words: readonly string[]): string | undefined {
    if (words.length === 0) return undefined;
    const hits = new Map<Entry, number>();
    for (const word of words) {
      const whole = this.byWord.get(stemOf(word));
      if (whole && whole.size > 0) {
        for (const entry of whole) hits.set(entry, (hits.get(entry) ?? 0) + 1);
      } else if (word.length >= 4) {
        for (const entry of this.entries.values())
          if (entry.joined.includes(word)) hits.set(entry, (hits.get(entry) ?? 0) + 1);
      }
    }
    const needed = words.length >= 3 ? words.length - 1 : words.length;
    let best: Entry | undefined;
    let bestHits = 0;
    for (const [entry, count] of hits) {
      // Enough of the request's words, or every word of the value's name ("my dentist appointment": Dentist).
      if (count < needed && count < entry.stems) continue;
      if (count > bestHits || (count === bestHits && best && entry.seq > best.seq)) {
        best = entry;
        bestHits = count;
      }
    }
    return best?.value;
  }
}

/** How many values of a kind an account keeps (the oldest learnt go first). */
const CAPACITY: Record<VocabularyKind, number> = {
  sender: 5_000,
  event: 2_000,
  file: 5_000,
  device: 1_000,
  connection: 100,
  memory: 20_000,
  message: 1_000,
};

export class AccountVocabulary {
  private readonly kinds = new Map<VocabularyKind, KindIndex>();

  learn(items: readonly Learned[]): void {
    for (const item of items) {
      if (typeof item.value !== 'string' || !item.value) continue;
      let index = this.kinds.get(item.kind);
      if (!index) this.kinds.set(item.kind, (index = new KindIndex(CAPACITY[item.kind] ?? 1_000)));
      index.add(item.value, item.label ?? item.value);
    }
  }

  known(kind: VocabularyKind, words: string): string | undefined {
    return this.kinds.get(kind)?.find(wordsOf(words));
  }

  size(kind: VocabularyKind): number {
    return this.kinds.get(kind)?.size ?? 0;
  }
}

/** The last value of each kind a discussion's results showed: what "read it" and "reply yes" refer to. */
export type RecentValues = Map<VocabularyKind, string>;

/** A bounded map that forgets the least recently used key first. */
class Recently<V> {
  private readonly map = new Map<string, V>();
  constructor(
    private readonly capacity: number,
    private readonly make: () => V,
  ) {}

  get(key: string): V {
    let value = this.map.get(key);
    if (value === undefined) {
      value = this.make();
      if (this.map.size >= this.capacity) this.map.delete(this.map.keys().next().value as string);
    } else {
      this.map.delete(key);
    }
    this.map.set(key, value);
    return value;
  }
}

/** Every account's vocabulary and every discussion's recent values, for one built-in model (one process). */
export class Vocabularies {
  private readonly accounts = new Recently<AccountVocabulary>(1_000, () => new AccountVocabulary());
  private readonly discussions = new Recently<RecentValues>(10_000, () => new Map());

  account(id: string): AccountVocabulary {
    return this.accounts.get(id);
  }

  recent(discussion: string): RecentValues {
    return this.discussions.get(discussion);
  }

  learn(account: string, discussion: string, items: readonly Learned[]): void {
    this.account(account).learn(items);
    const recent = this.recent(discussion);
    // The first item of a kind in a result is the one a follow-up means ("read it": the newest message listed).
    const seen = new Set<VocabularyKind>();
    for (const item of items) {
      if (seen.has(item.kind)) continue;
      seen.add(item.kind);
      recent.set(item.kind, item.value);
    }
  }
}
