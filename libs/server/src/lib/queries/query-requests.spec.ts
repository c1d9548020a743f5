import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';

/** What POST /queries refuses before any stream starts, through the whole in-process stack. */
describe('POST /queries refusals', () => {
  let api: InProcessApp;
  beforeAll(async () => {
    api = await startInProcessApp();
  });
  afterAll(() => api.close());

  const post = (payload: string) =>
    api.inject({
      method: 'POST',
      url: '/api/v1/queries',
      headers: { 'content-type': 'application/json' },
      payload,
    });

  it('answers a model that is not configured with 422 on the model field, listing the configured ones, and logs no error', async () => {
    const res = await post(JSON.stringify({ text: 'hi', model: 'gpt-imaginary' }));
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'model', message: expect.stringContaining('configured: builtin') }],
    });
    expect(api.logs().filter((line) => Number(line.level) >= 50)).toEqual([]);
  });

  it('refuses text with half a character (a lone surrogate) with 422 naming the field', async () => {
    const res = await post('{"text": "hello \\ud800 there"}');
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: 'text', message: expect.stringContaining('valid Unicode') }],
    });
  });
});
