import { ProblemError } from '@assistant/contracts';
import { ModelCatalog } from './model-catalog';
import { OpenAiCompatibleChatModel } from './openai-compatible/openai-compatible-chat-model';

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

describe('ModelCatalog.close', () => {
  it('closes the connections of every model built so far, and builds a model anew when it is picked again', async () => {
    const catalog = new ModelCatalog({
      defaultModel: 'builtin',
      extraModels: ['ollama:llama3.2'],
      builtinPacingMs: 0,
    });
    const { model } = await catalog.pick('ollama:llama3.2');
    expect(model).toBeInstanceOf(OpenAiCompatibleChatModel);
    const close = jest.spyOn(model as OpenAiCompatibleChatModel, 'close');
    await catalog.pick('builtin');

    await catalog.close();

    expect(close).toHaveBeenCalledTimes(1);
    expect((await catalog.pick('ollama:llama3.2')).model).not.toBe(model);
  });
});
