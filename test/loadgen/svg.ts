// A small well-formedness check for SVG text (no XML parser is installed): every element closes in
// order, attributes are quoted, the root is <svg>. Returns the element names in document order.
export function xmlElements(text: string): string[] {
  const body = text.replace(/^<\?xml[^>]*\?>\s*/, '').replace(/<!--[\s\S]*?-->/g, '');
  const stack: string[] = [];
  const names: string[] = [];
  const tag = /<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/g;
  let last = 0;
  for (let m = tag.exec(body); m !== null; m = tag.exec(body)) {
    const between = body.slice(last, m.index);
    if (between.includes('<')) throw new Error(`malformed markup near: ${between.slice(between.indexOf('<'), between.indexOf('<') + 60)}`);
    last = tag.lastIndex;
    const [, closing, name, , selfClosing] = m;
    if (closing) {
      const open = stack.pop();
      if (open !== name) throw new Error(`</${name}> closes <${open ?? 'nothing'}>`);
    } else {
      names.push(name!);
      if (!selfClosing) stack.push(name!);
    }
    if (stack.length === 0 && closing && body.slice(last).trim() !== '') throw new Error('content after the root element');
  }
  if (body.slice(last).includes('<')) throw new Error('malformed markup at the end');
  if (stack.length > 0) throw new Error(`unclosed <${stack.join('>, <')}>`);
  if (names[0] !== 'svg') throw new Error(`root element is <${names[0] ?? 'none'}>, not <svg>`);
  return names;
}
