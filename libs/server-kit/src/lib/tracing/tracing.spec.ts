import { tracingWanted } from './tracing';
import { routeTemplate } from './http-tracing.hook';

describe('tracingWanted', () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };

  it('is off without an OTLP endpoint, whatever else is set', () => {
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ OTEL_SERVICE_NAME: 'api', OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
  });

  it('is on with the general or the traces endpoint', () => {
    expect(tracingWanted(endpoint)).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(
      true,
    );
  });

  it('is off when the SDK is disabled or the traces exporter is none, as the standard variables say', () => {
    expect(tracingWanted({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
    expect(tracingWanted({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(tracingWanted({ ...endpoint, OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: 'otlp' })).toBe(
      true,
    );
  });
});

describe('routeTemplate', () => {
  it("writes Fastify's route parameters as OpenTelemetry's templates do", () => {
    expect(routeTemplate('/api/v1/memories/:id')).toBe('/api/v1/memories/{id}');
    expect(routeTemplate('/api/v1/discussions/:discussionId/messages')).toBe(
      '/api/v1/discussions/{discussionId}/messages',
    );
    expect(routeTemplate('/api/v1/queries')).toBe('/api/v1/queries');
  });
});
