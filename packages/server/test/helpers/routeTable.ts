/**
 * `METHOD /path` → its hooks as `kind: name` (`onRequest: refuseFormBody`), in order, from
 * `printRoutes({ includeHooks: true })`: a tree whose nodes print the part of the path after their
 * parent's, one line per method, each followed by that method's hook lines.
 */
export function routeHooks(table: string): Map<string, string[]> {
  const routes = new Map<string, string[]>();
  const parents: { column: number; path: string }[] = [];
  let current: string[] | undefined;
  for (const line of table.split('\n')) {
    const route = /(\S+) \(([A-Z, ]+)\)\s*$/.exec(line);
    if (route) {
      const [, part, methods] = route;
      while (parents.length > 0 && parents.at(-1)!.column >= route.index) parents.pop();
      const path = (parents.at(-1)?.path ?? '') + part!;
      parents.push({ column: route.index, path });
      current = [];
      for (const method of methods!.split(', ')) routes.set(`${method} ${path}`, current);
      continue;
    }
    const hook = /• \((\w+)\) \[(.*)\]/.exec(line);
    if (hook && current) {
      const names = (JSON.parse(`[${hook[2]!}]`) as string[]).map((name) => name.replace(/\(\)$/, ''));
      current.push(...names.map((name) => `${hook[1]!}: ${name}`));
    }
  }
  return routes;
}
