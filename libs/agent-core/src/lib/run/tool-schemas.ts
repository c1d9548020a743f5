import { z } from 'zod';
import type { JSONSchema7, JSONSchema7Definition, LanguageModelV3FunctionTool } from '@ai-sdk/provider';
import type { ConnectedTool } from '@assistant/tool-kit';

/**
 * Each input schema's JSON Schema, made once: a tool's zod schema is a module-level object that every run (and
 * every connection of it) shares, so keying on it turns the conversion into a lookup on the query path.
 */
const converted = new WeakMap<z.ZodObject, JSONSchema7>();

/**
 * The JSON Schema a model sees for a tool's input, as the AI SDK's `zodSchema(...)` makes it: draft 7, the
 * input side of transforms and defaults, shared parts inlined, and every object closed
 * (`additionalProperties: false`), which OpenAI's strict tool mode requires.
 */
export function toolInputJsonSchema(input: z.ZodObject): JSONSchema7 {
  let schema = converted.get(input);
  if (!schema) {
    schema = closeObjects(
      z.toJSONSchema(input, { target: 'draft-7', io: 'input', reused: 'inline' }) as JSONSchema7,
    );
    converted.set(input, schema);
  }
  return schema;
}

/** The run's tools as a language model call lists them. */
export function modelToolsOf(tools: readonly ConnectedTool[]): LanguageModelV3FunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: toolInputJsonSchema(tool.input),
  }));
}

function closeObjects(schema: JSONSchema7): JSONSchema7 {
  const isObject = schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object'));
  if (isObject) {
    const extra = schema.additionalProperties;
    schema.additionalProperties = extra != null && typeof extra !== 'boolean' ? visit(extra) : false;
    for (const key of Object.keys(schema.properties ?? {})) {
      schema.properties![key] = visit(schema.properties![key]);
    }
  }
  if (schema.items != null) {
    schema.items = Array.isArray(schema.items) ? schema.items.map(visit) : visit(schema.items);
  }
  for (const key of ['anyOf', 'allOf', 'oneOf'] as const) {
    const list = schema[key];
    if (list) schema[key] = list.map(visit);
  }
  for (const key of Object.keys(schema.definitions ?? {})) {
    schema.definitions![key] = visit(schema.definitions![key]);
  }
  return schema;
}

function visit(definition: JSONSchema7Definition): JSONSchema7Definition {
  return typeof definition === 'boolean' ? definition : closeObjects(definition);
}
