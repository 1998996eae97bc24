/**
 * Why a text is not well-formed XML (the subset reports use: a declaration, elements with
 * double-quoted attributes, text, the five predefined entities and character references), or
 * undefined when it is. No XML parser is a dependency of the repository; this checks the rules
 * a JUnit reader trips over: balanced tags, quoted attributes, escaped `<` and `&`, legal characters.
 */
export function xmlProblem(xml: string): string | undefined {
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(body)) return 'a control character XML 1.0 does not allow';
  const stack: string[] = [];
  const token = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*="[^"<]*")*)\s*(\/?)>|([^<]+)|(<)/g;
  let roots = 0;
  for (let m = token.exec(body); m; m = token.exec(body)) {
    const [, closing, name, attributes, selfClosing, text, stray] = m;
    if (stray) return `a '<' that starts no tag at offset ${m.index}`;
    const entityText = text ?? attributes ?? '';
    const badEntity = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.exec(entityText);
    if (badEntity) return `an unescaped '&' at offset ${m.index + badEntity.index}`;
    if (text !== undefined) {
      if (stack.length === 0 && text.trim()) return `text outside the root element at offset ${m.index}`;
      continue;
    }
    if (closing) {
      if (stack.pop() !== name) return `</${name}> closes no open <${name}> at offset ${m.index}`;
    } else {
      if (stack.length === 0 && ++roots > 1) return 'more than one root element';
      if (!selfClosing) stack.push(name!);
    }
  }
  return stack.length ? `<${stack[stack.length - 1]}> is never closed` : roots === 1 ? undefined : 'no root element';
}
