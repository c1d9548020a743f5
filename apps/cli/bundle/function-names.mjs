/**
 * esbuild's `keepNames` (bundle.mjs) gives every function and class its name back with a helper, `__name`, called
 * where the function is created: for a function nested in another, each time the outer one runs. Fastify's hook
 * runners make three such functions for each phase of hooks they run, Nest's router one for a handler's
 * parameters: esbuild's helper, an `Object.defineProperty` (a call into V8's runtime), ran 11 times a `GET /me`,
 * 6% of its CPU in a profile (issue 23). Yet esbuild renames only top-level names that collide when it joins
 * modules; a nested function has its name already. The helper written here leaves a function whose name is
 * already right as it is (the same property, so nothing a library reads changes) and names the others as esbuild's
 * does.
 */

/** esbuild's helper as it writes it (0.28), and ours: one line each, so that the source maps stay true. */
export const ESBUILD_NAME_HELPER =
  'var __name = (target, value) => __defProp(target, "name", { value, configurable: true });';
export const NAME_HELPER =
  'var __name = (target, value) => target.name === value ? target : __defProp(target, "name", { value, configurable: true });';

/**
 * `files` (`{ path, text }`) with esbuild's helper replaced by ours in the code that declares it. Throws when no file
 * declares esbuild's helper as expected, or one declares another `__name`: an esbuild that writes it otherwise
 * must be looked at, not silently left slow.
 */
export function withCheapNames(files) {
  let replaced = 0;
  const result = files.map((file) => {
    if (!/\.[cm]js$/.test(file.path) || !file.text.includes('var __name = ')) return file;
    const helpers = file.text.split(ESBUILD_NAME_HELPER);
    if (helpers.length !== file.text.split('var __name = ').length)
      throw new Error(`${file.path}: esbuild's __name helper is not the one function-names.mjs expects`);
    replaced += 1;
    return { ...file, text: helpers.join(NAME_HELPER) };
  });
  if (replaced === 0) throw new Error("no bundle file declares esbuild's __name helper (keepNames)");
  return result;
}
