import { ProblemError } from '@assistant/contracts';
import { ModelCatalog } from './model-catalog';

describe('ModelCatalog.pick', () => {
  const catalog = new ModelCatalog({
    defaultModel: 'builtin',
    extraModels: ['ollama:llama3.2'],
    builtinPacingMs: 0,
  });

  it('refuses a model that is not configured as a mistake in the request, naming the configured ones', async () => {
    for (const name of ['gpt-imaginary', 'ollama:not-configured']) {
      const error = await catalog.pick(name).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProblemError);
      expect(error).toMatchObject({
        code: 'validation_failed',
        status: 422,
        fieldErrors: [
          {
            field: 'model',
            message: `"${name}" is not configured on this server; configured: builtin, ollama:llama3.2`,
          },
        ],
      });
    }
  });

  it('gives the default model when none is asked for, and a configured one by name', async () => {
    expect((await catalog.pick(undefined)).name).toBe('builtin');
    expect((await catalog.pick('ollama:llama3.2')).name).toBe('ollama:llama3.2');
  });
});
