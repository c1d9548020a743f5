import {
  Global,
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { SERVER_CONFIG, type ServerConfig } from '@assistant/server-kit';
import { NO_RUN_OBSERVER, RUN_OBSERVER } from '@assistant/queries';
import { recordHttpMetrics } from './http-metrics.hook';
import { MetricsEndpoint } from './metrics-endpoint';
import { RunMetrics } from './run-metrics';
import { ServerMetrics } from './server-metrics';

/** Wires the metrics into the server's life: the HTTP hook before the routes, the port with the app. */
@Injectable()
class MetricsLifecycle implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly metrics: ServerMetrics,
    private readonly endpoint: MetricsEndpoint,
    private readonly adapter: HttpAdapterHost,
    @Inject(SERVER_CONFIG) private readonly config: ServerConfig,
  ) {}

  onModuleInit(): void {
    // Fastify takes hooks until it is ready, which is when it first listens or answers (after Nest's init).
    recordHttpMetrics(this.adapter.httpAdapter.getInstance<FastifyInstance>(), this.metrics);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.endpoint.listen(this.config.host, this.config.metricsPort ?? 0);
  }

  /** After the API has closed: the last scrape can still see the drain. */
  async onApplicationShutdown(): Promise<void> {
    await this.endpoint.close();
  }
}

/**
 * Prometheus metrics (ASSISTANT_METRICS_PORT): HTTP requests and latency, open event streams, runs, model latency
 * and tool calls, and the process's own. Without a port nothing is measured: the queries get a no-op observer.
 */
@Global()
@Module({})
export class MetricsModule {
  static register(config: Pick<ServerConfig, 'metricsPort'>): DynamicModule {
    if (config.metricsPort === undefined) {
      return {
        module: MetricsModule,
        providers: [{ provide: RUN_OBSERVER, useValue: NO_RUN_OBSERVER }],
        exports: [RUN_OBSERVER],
      };
    }
    return {
      module: MetricsModule,
      providers: [
        { provide: ServerMetrics, useFactory: () => new ServerMetrics() },
        {
          provide: MetricsEndpoint,
          inject: [ServerMetrics],
          useFactory: (m: ServerMetrics) => new MetricsEndpoint(m),
        },
        {
          provide: RUN_OBSERVER,
          inject: [ServerMetrics],
          useFactory: (m: ServerMetrics) => new RunMetrics(m),
        },
        MetricsLifecycle,
      ],
      exports: [RUN_OBSERVER, MetricsEndpoint],
    };
  }
}
