import { toolListSchema } from '@assistant/contracts';
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';

let api: InProcessApp;
beforeAll(async () => {
  api = await startInProcessApp();
});
afterAll(() => api?.close());

describe('GET /api/v1/tools', () => {
  it('lists the catalogue in the contract’s shape, the memory tools active on every account', async () => {
    const res = await api.inject({ method: 'GET', url: '/api/v1/tools' });
    expect(res.statusCode).toBe(200);
    const { data } = toolListSchema.parse(res.json());
    expect(data.filter((tool) => tool.family === 'memory')).toEqual([
      expect.objectContaining({
        name: 'memory_forget',
        scope: 'write:memories',
        side_effects: false,
        active: true,
      }),
      expect.objectContaining({
        name: 'memory_save',
        scope: 'write:memories',
        side_effects: false,
        active: true,
      }),
      expect.objectContaining({ name: 'memory_search', scope: 'read:memories', active: true }),
    ]);
    expect(data.find((tool) => tool.name === 'memory_save')?.input_schema).toMatchObject({
      type: 'object',
      required: ['content'],
    });
  });

  it('needs read:tools', async () => {
    const token = await api.issueToken(['read:memories']);
    const res = await api.inject({ method: 'GET', url: '/api/v1/tools', token });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'insufficient_scope' });
  });
});
