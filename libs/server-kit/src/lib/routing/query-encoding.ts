import type { FieldError } from '@assistant/contracts';

/** A name or value of a query string, as a form encodes it (`+` for a space), or null when it is not UTF-8. */
function decodedOrNull(encoded: string): string | null {
  try {
    return decodeURIComponent(encoded.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/**
 * What is wrong with the encoding of a URL's query string: one error per parameter whose name or value is not
 * validly percent-encoded UTF-8 (`?q=%ff`, `?q=caf%c3`, a lone `%`). The framework's parser keeps such a value
 * as its raw text, so without this `?q=%ff` would quietly search for the three characters `%ff`.
 */
export function queryEncodingErrors(url: string): FieldError[] {
  const start = url.indexOf('?');
  if (start < 0) return [];
  const errors: FieldError[] = [];
  for (const pair of url.slice(start + 1).split('&')) {
    if (!pair) continue;
    const split = pair.indexOf('=');
    const rawName = split < 0 ? pair : pair.slice(0, split);
    const name = decodedOrNull(rawName);
    if (name === null || (split >= 0 && decodedOrNull(pair.slice(split + 1)) === null)) {
      const field = name ?? rawName;
      errors.push({ field, message: `${field} is not valid percent-encoded UTF-8` });
    }
  }
  return errors;
}
