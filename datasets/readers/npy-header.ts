// The .npy header is a Python literal (a dict of str/bool/int/tuple), not JSON, so it needs its own
// small parser. Only the subset numpy's `np.save` emits is understood; anything else is reported
// rather than guessed at.

export type PyValue = string | number | boolean | null | PyValue[] | { [key: string]: PyValue };

export class PyLiteralError extends Error {}

export function parsePyLiteral(text: string): PyValue {
  let i = 0;

  const skip = (): void => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const fail = (what: string): never => {
    throw new PyLiteralError(`${what} at offset ${i}`);
  };

  const value = (): PyValue => {
    skip();
    const c = text[i];
    if (c === undefined) return fail('unexpected end of header');
    if (c === '{') return dict();
    if (c === '(' || c === '[') return sequence(c === '(' ? ')' : ']');
    if (c === "'" || c === '"') return str(c);
    const word = /^(True|False|None|-?\d+L?)/.exec(text.slice(i, i + 32));
    if (word === null) return fail(`unexpected character ${JSON.stringify(c)}`);
    i += word[0].length;
    if (word[0] === 'True') return true;
    if (word[0] === 'False') return false;
    if (word[0] === 'None') return null;
    // Python 2 era files write longs as e.g. 100L.
    return Number(word[0].replace(/L$/, ''));
  };

  const str = (quote: string): string => {
    const end = text.indexOf(quote, i + 1);
    if (end < 0) return fail('unterminated string');
    const s = text.slice(i + 1, end);
    i = end + 1;
    return s;
  };

  // Tuples and lists: comma separated, trailing comma allowed (`(100,)`).
  const sequence = (close: string): PyValue[] => {
    i++;
    const items: PyValue[] = [];
    for (;;) {
      skip();
      if (text[i] === close) {
        i++;
        return items;
      }
      items.push(value());
      skip();
      if (text[i] === ',') i++;
      else if (text[i] !== close) fail(`expected ',' or '${close}'`);
    }
  };

  const dict = (): { [key: string]: PyValue } => {
    i++;
    const out: { [key: string]: PyValue } = {};
    for (;;) {
      skip();
      if (text[i] === '}') {
        i++;
        return out;
      }
      const q = text[i];
      if (q !== "'" && q !== '"') fail('expected a string key');
      const key = str(q!);
      skip();
      if (text[i] !== ':') fail("expected ':'");
      i++;
      out[key] = value();
      skip();
      if (text[i] === ',') i++;
      else if (text[i] !== '}') fail("expected ',' or '}'");
    }
  };

  const v = value();
  skip();
  if (i !== text.length) fail('unexpected text after the header dict');
  return v;
}
