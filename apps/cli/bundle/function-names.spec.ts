/**
 * The bundle's `__name` helper (function-names.mjs): a function whose name is already right is left as it is,
 * without `Object.defineProperty`; any other gets its name as esbuild's helper gives it.
 */
import { join } from 'node:path';

interface FunctionNamesModule {
  ESBUILD_NAME_HELPER: string;
  NAME_HELPER: string;
  withCheapNames(files: { path: string; text: string }[]): { path: string; text: string }[];
}

// Node's own import(), which jest (run with --experimental-vm-modules) lets load the build's ES modules.
const nativeImport = new Function('url', 'return import(url)') as (url: string) => Promise<unknown>;
let names: FunctionNamesModule;

beforeAll(async () => {
  names = (await nativeImport(join(__dirname, 'function-names.mjs'))) as FunctionNamesModule;
});

/** The helper `declaration` as a bundle file declares it, on a `__defProp` that counts its calls. */
function helperOf(declaration: string) {
  const calls: string[] = [];
  const defProp = (target: object, key: string, descriptor: PropertyDescriptor) => {
    calls.push(key);
    return Object.defineProperty(target, key, descriptor);
  };
  const helper = new Function('__defProp', `${declaration}\nreturn __name;`)(defProp) as <T>(
    target: T,
    value: string,
  ) => T;
  return { helper, calls };
}

it('leaves a function with its own name alone, and names any other as esbuild does', () => {
  const ours = helperOf(names.NAME_HELPER);
  const esbuilds = helperOf(names.ESBUILD_NAME_HELPER);
  for (const { helper } of [ours, esbuilds]) {
    function next() {
      return undefined;
    }
    const renamed = function next2() {
      return undefined;
    };
    expect(helper(next, 'next')).toBe(next);
    expect(helper(renamed, 'next').name).toBe('next');
    expect(helper(class Reply {}, 'Reply').name).toBe('Reply');
    expect(helper(() => undefined, 'handler').name).toBe('handler');
    // Either way, the property is as the language makes it: not writable, not enumerable, configurable.
    const asMade = { value: 'next', writable: false, enumerable: false, configurable: true };
    expect(Object.getOwnPropertyDescriptor(next, 'name')).toEqual(asMade);
    expect(Object.getOwnPropertyDescriptor(renamed, 'name')).toEqual(asMade);
  }
  // Ours defines only the two names that were not right already; esbuild's all four.
  expect(ours.calls).toHaveLength(2);
  expect(esbuilds.calls).toHaveLength(4);
});

it("replaces esbuild's helper in the code files, and refuses a bundle whose helper it does not know", () => {
  const code = `var __defProp = Object.defineProperty;\n${names.ESBUILD_NAME_HELPER}\nexport {};\n`;
  const files = names.withCheapNames([
    { path: '/dist/chunk-A.mjs', text: code },
    { path: '/dist/chunk-A.mjs.map', text: names.ESBUILD_NAME_HELPER },
    { path: '/dist/linkedom.cjs', text: code },
    { path: '/dist/serve.mjs', text: 'import "./chunk-A.mjs";\n' },
  ]);
  expect(files.map((file) => file.text)).toEqual([
    code.replace(names.ESBUILD_NAME_HELPER, names.NAME_HELPER),
    names.ESBUILD_NAME_HELPER,
    code.replace(names.ESBUILD_NAME_HELPER, names.NAME_HELPER),
    'import "./chunk-A.mjs";\n',
  ]);
  // The same number of lines: the source maps still point where they did.
  expect(files[0].text.split('\n')).toHaveLength(code.split('\n').length);

  const otherHelper = 'var __name = (target, value) => Object.defineProperty(target, "name", { value });';
  expect(() => names.withCheapNames([{ path: '/dist/chunk-B.mjs', text: otherHelper }])).toThrow(
    /chunk-B.mjs: esbuild's __name helper is not the one/,
  );
  expect(() => names.withCheapNames([{ path: '/dist/serve.mjs', text: 'export {};' }])).toThrow(
    /no bundle file declares/,
  );
});
