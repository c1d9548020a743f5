/**
 * Prometheus metrics on their own port (ASSISTANT_METRICS_PORT): off by default; when on, `/metrics` shows the
 * requests by route template (never a URL), a query's run, its model latency and tool calls, and the process's own.
 */
import { startInProcessApp, type InProcessApp } from '../../testing/in-process-app';
import { MetricsEndpoint } from './metrics-endpoint';

/** The value of one sample line, e.g. `assistant_runs_ended_total{outcome="completed",reason=""}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics', () => {
  it('are off by default: no port, nothing served', async () => {
    const api = await startInProcessApp();
    try {
      expect(api.config.metricsPort).toBeUndefined();
      expect(() => api.app.get(MetricsEndpoint)).toThrow();
    } finally {
      await api.close();
    }
  });

  describe('with a port', () => {
    let api: InProcessApp;
    let metricsUrl: string;
    beforeAll(async () => {
      api = await startInProcessApp({ env: { ASSISTANT_METRICS_PORT: '0' } });
      metricsUrl = `${api.app.get(MetricsEndpoint).url}/metrics`;
    });
    afterAll(() => api.close());

    it('count requests by route template, method and status class, and a query from start to end', async () => {
      for (let i = 0; i < 3; i++) await api.inject({ method: 'GET', url: '/api/v1/me' });
      await api.inject({ method: 'GET', url: '/api/v1/memories/mem_missing' });
      await api.inject({ method: 'GET', url: '/nowhere/at/all' });
      const query = await api.inject({
        method: 'POST',
        url: '/api/v1/queries',
        headers: { 'content-type': 'application/json' },
        payload: { text: 'remember that my bike is green' },
      });
      expect(query.statusCode).toBe(200);
      expect(query.body).toContain('event: tool_call.completed');
      expect(query.body).toContain('event: query.completed');

      const res = await fetch(metricsUrl);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      const http = 'assistant_http_request_duration_seconds_count';
      expect(sample(text, `${http}{route="/api/v1/me",method="GET",status="2xx"}`)).toBe(3);
      expect(sample(text, `${http}{route="/api/v1/memories/:id",method="GET",status="4xx"}`)).toBe(1);
      expect(sample(text, `${http}{route="unmatched",method="GET",status="4xx"}`)).toBe(1);
      expect(text).not.toContain('mem_missing');
      expect(text).not.toContain('/nowhere');
      // The stream is no request to time: it lasts as long as its answer.
      expect(text).not.toMatch(/assistant_http_request_duration_seconds_count\{route="\/api\/v1\/queries"/);
      expect(sample(text, 'assistant_open_event_streams')).toBe(0);

      expect(sample(text, 'assistant_runs_started_total{model="builtin"}')).toBe(1);
      expect(sample(text, 'assistant_runs_ended_total{outcome="completed",reason=""}')).toBe(1);
      expect(sample(text, 'assistant_runs_in_progress')).toBe(0);
      expect(sample(text, 'assistant_run_duration_seconds_count{outcome="completed"}')).toBe(1);
      expect(sample(text, 'assistant_model_first_output_seconds_count{model="builtin"}')).toBe(1);
      expect(sample(text, 'assistant_tool_calls_total{tool="memory_save",status="ok"}')).toBe(1);
      // The process's own (prom-client's defaults).
      expect(text).toContain('process_resident_memory_bytes');
      expect(text).toContain('nodejs_eventloop_lag_seconds');
    });

    it('serve nothing but GET /metrics on their port', async () => {
      expect((await fetch(metricsUrl.replace('/metrics', '/api/v1/me'))).status).toBe(404);
    });
  });
});
