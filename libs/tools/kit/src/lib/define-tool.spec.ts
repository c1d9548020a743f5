import { z } from 'zod';
import * as kit from '../index';
import { defineTool, isToolDefinition, parseToolInput, TOOL_DEFINITION, ToolInputError } from './define-tool';
import { defineFamily, familyInstructions } from './family';
import { allowedTools, withheldTools } from './tool-registry';

const tool = (name: string, scope: 'read:memories' | 'write:memories') =>
  defineTool()({ name, description: name, input: z.object({}), scope, handler: async () => null });
/** Two tools shaped like the memory family's (the family itself lives in its own lib). */
const tools = [tool('memory_search', 'read:memories'), tool('memory_save', 'write:memories')];

describe('defineTool and the registry', () => {
  it('refuses names that are not <family>_<verb>', () => {
    const base = {
      description: 'd',
      input: z.object({}),
      scope: 'read:web' as const,
      handler: async () => null,
    };
    expect(() => defineTool()({ ...base, name: 'Fetch' })).toThrow(/snake_case/);
    expect(() => defineTool()({ ...base, name: 'web' })).toThrow(/snake_case/);
    const fetch = defineTool()({ ...base, name: 'web_fetch' });
    expect(fetch.side_effects).toBe(false);
    expect(fetch.annotations.readOnlyHint).toBe(true);
    expect(
      defineTool()({ ...base, name: 'web_post', scope: 'write:tools', side_effects: true }).annotations
        .readOnlyHint,
    ).toBe(false);
  });

  it('refuses a tool with side effects whose scope is not a write: scope, so a read-only token never runs it', () => {
    const base = { description: 'd', input: z.object({}), side_effects: true, handler: async () => null };
    expect(() => defineTool({ ...base, name: 'custom_refund', scope: 'read:tools' })).toThrow(
      'custom_refund: a tool with side effects needs a write: scope (write:tools when none is given), not read:tools',
    );
    expect(() => defineTool()({ ...base, name: 'web_post', scope: 'read:web' })).toThrow(
      /needs a write: scope/,
    );
    expect(defineTool({ ...base, name: 'custom_mail', scope: 'write:emails' }).scope).toBe('write:emails');
    expect(defineTool({ ...base, name: 'custom_refund' }).scope).toBe('write:tools');
  });

  it('declares a custom tool in one call, its scope by its side effects, marked as made by defineTool', () => {
    const base = { description: 'd', input: z.object({ id: z.string() }), handler: async () => 'ok' };
    const lookup = defineTool({ ...base, name: 'custom_lookup' });
    expect(lookup).toMatchObject({ name: 'custom_lookup', scope: 'read:tools', side_effects: false });
    expect(lookup.annotations.readOnlyHint).toBe(true);
    const refund = defineTool({ ...base, name: 'custom_refund', side_effects: true });
    expect(refund).toMatchObject({ scope: 'write:tools', side_effects: true });
    expect(defineTool({ ...base, name: 'custom_mail', scope: 'read:emails' }).scope).toBe('read:emails');
    expect(() => defineTool({ ...base, name: 'Lookup' })).toThrow(/snake_case/);
    // The mark is what a server loading a module checks; it is the same symbol for every copy of the kit.
    expect(isToolDefinition(lookup)).toBe(true);
    expect(isToolDefinition(defineTool()({ ...base, name: 'web_x', scope: 'read:web' }))).toBe(true);
    expect(isToolDefinition({ ...lookup })).toBe(false);
    expect(isToolDefinition({ name: 'custom_lookup', handler: async () => null })).toBe(false);
    expect(TOOL_DEFINITION).toBe(Symbol.for('@assistant/tool-kit:tool-definition'));
  });

  it('re-exports zod, so that a custom tool module needs only the kit', () => {
    expect(kit.z).toBe(z);
  });

  it('refuses a family whose tool is not named after it', () => {
    const family = {
      description: 'd',
      topic: { about: 'a', keywords: [] },
      providers: [],
      phrases: [],
      answer: () => '',
    };
    expect(() => defineFamily({ ...family, name: 'web', tools })).toThrow(/must be named web_<verb>/);
    expect(defineFamily({ ...family, name: 'memory', tools }).tools).toHaveLength(2);
  });

  it('takes a family by any name of the grammar, and refuses one outside it', () => {
    const family = {
      description: 'd',
      topic: { about: 'a', keywords: [] },
      providers: [],
      tools: [],
      phrases: [],
      answer: () => '',
    };
    expect(defineFamily({ ...family, name: 'tide2' }).name).toBe('tide2');
    for (const name of ['Tide', 'tide_times', '2tide', ''])
      expect(() => defineFamily({ ...family, name })).toThrow(/lowercase letters and digits/);
  });

  it("has each family that has some of the run's tools say what it tells a language model, once", () => {
    const families = [
      { tools, instructions: (own: readonly string[]) => `use ${own.join(' and ')}` },
      { tools: [], instructions: () => 'never said: none of its tools is in the run' },
      { tools },
    ];
    expect(familyInstructions(families, ['memory_search'])).toEqual(['use memory_search']);
    expect(familyInstructions(families, ['memory_save', 'memory_search'])).toEqual([
      'use memory_search and memory_save',
    ]);
    expect(familyInstructions(families, ['web_fetch'])).toEqual([]);
  });

  it('keeps only the tools the scopes allow, in a stable order', () => {
    expect(allowedTools(tools, ['read:memories', 'write:memories']).map((t) => t.name)).toEqual([
      'memory_save',
      'memory_search',
    ]);
    expect(allowedTools(tools, ['read:memories']).map((t) => t.name)).toEqual(['memory_search']);
    expect(
      allowedTools(tools, ['read:memories', 'write:memories'], ['memory_save']).map((t) => t.name),
    ).toEqual(['memory_save']);
  });

  it('says why each other tool is withheld: a scope the token lacks first, else the query left it out', () => {
    expect(withheldTools(tools, ['read:memories', 'write:memories'], ['memory_search'])).toEqual([
      { name: 'memory_save', reason: 'not_requested' },
    ]);
    expect(withheldTools(tools, ['read:memories'], ['memory_search'])).toEqual([
      { name: 'memory_save', reason: 'scope', scope: 'write:memories' },
    ]);
    expect(withheldTools(tools, ['read:memories', 'write:memories'])).toEqual([]);
  });

  it('says what is wrong with an input in plain words, naming the field', () => {
    const search = defineTool()({
      name: 'memory_search',
      description: 'd',
      input: z.object({ query: z.string().trim().min(1), limit: z.number().int().default(5) }),
      scope: 'read:memories',
      handler: async () => null,
    });
    expect(parseToolInput(search, { query: ' x ' })).toEqual({ query: 'x', limit: 5 });
    // A schema message that does not name its field gets the field in front.
    expect(() => parseToolInput(search, { query: 'x', limit: 'many' })).toThrow(ToolInputError);
    expect(() => parseToolInput(search, { query: 'x', limit: 'many' })).toThrow(/^limit: /);
  });
});
