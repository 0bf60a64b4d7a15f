/**
 * Marks a plugin so Fastify does not give it an encapsulated context: its hooks, decorators and
 * handlers apply to the instance that registers it (what npm `fastify-plugin` does, without the
 * dependency).
 */
export function unencapsulated<T extends (...args: never[]) => unknown>(plugin: T, name: string): T {
  Object.assign(plugin, {
    [Symbol.for('skip-override')]: true,
    [Symbol.for('fastify.display-name')]: name,
  });
  return plugin;
}
