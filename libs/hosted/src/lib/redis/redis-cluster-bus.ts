import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { ClusterBus, ClusterMessages, ClusterTopic } from '@assistant/server-kit';
import type { RedisConnections } from './redis-connections';

interface Envelope {
  /** The process that published it: it does not handle its own messages. */
  from: string;
  topic: ClusterTopic;
  message: unknown;
}

/** The cluster bus over Redis pub/sub: one channel for every topic, one subscribing connection per process. */
export class RedisClusterBus implements ClusterBus {
  private readonly id = randomBytes(8).toString('hex');
  private readonly channel: string;
  private readonly handlers = new EventEmitter();
  private wasReady = true;

  constructor(
    private readonly redis: RedisConnections,
    private readonly onError: (error: unknown, what: string) => void,
  ) {
    this.channel = redis.key('bus');
    // One listener per MCP session and topic is possible: many are expected.
    this.handlers.setMaxListeners(0);
    redis.subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.channel) this.receive(text);
    });
    // ioredis subscribes again by itself after a reconnection; messages published in between are lost.
    redis.subscriber.on('close', () => (this.wasReady = false));
    redis.subscriber.on('ready', () => {
      if (this.wasReady) return;
      this.wasReady = true;
      this.handlers.emit('reconnect');
    });
  }

  /** Subscribes the channel; resolves once Redis confirms, so that no message of a started server is missed. */
  async start(): Promise<void> {
    await this.redis.subscriber.subscribe(this.channel);
  }

  async publish<T extends ClusterTopic>(topic: T, message: ClusterMessages[T]): Promise<void> {
    const envelope: Envelope = { from: this.id, topic, message };
    await this.redis.command.publish(this.channel, JSON.stringify(envelope)).then(
      () => undefined,
      (error: unknown) => this.onError(error, `could not tell the other instances about ${topic}`),
    );
  }

  subscribe<T extends ClusterTopic>(topic: T, handler: (message: ClusterMessages[T]) => void): () => void {
    this.handlers.on(topic, handler);
    return () => this.handlers.off(topic, handler);
  }

  onReconnect(listener: () => void): () => void {
    this.handlers.on('reconnect', listener);
    return () => this.handlers.off('reconnect', listener);
  }

  async close(): Promise<void> {
    this.handlers.removeAllListeners();
  }

  private receive(text: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(text) as Envelope;
    } catch (error) {
      this.onError(error, 'an unreadable message on the cluster bus');
      return;
    }
    if (envelope.from === this.id) return;
    try {
      this.handlers.emit(envelope.topic, envelope.message);
    } catch (error) {
      this.onError(error, `could not handle ${envelope.topic} from another instance`);
    }
  }
}
