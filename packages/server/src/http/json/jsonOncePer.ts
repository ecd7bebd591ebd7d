/**
 * The JSON text of an answer that a source object decides alone, written on the source's first request and
 * reused while the source lives (a WeakMap: the entry goes with it). For sources a cache hands out as the same
 * object to many requests — a block's balance reading, a verified token's claims — so that a hot route
 * serializes once per source instead of once per request. `answer` must list the route's 200 schema's fields in
 * its order (the caller sends the text with `sendJsonText`; no serializer runs).
 */
export function jsonOncePer<Source extends object>(
  answer: (source: Source) => object,
): (source: Source) => string {
  const texts = new WeakMap<Source, string>();
  return (source) => {
    let text = texts.get(source);
    if (text === undefined) {
      text = JSON.stringify(answer(source));
      texts.set(source, text);
    }
    return text;
  };
}
