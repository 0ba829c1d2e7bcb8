import { Redis } from 'ioredis';
import type { TradeRecord } from '../store/ports';

/**
 * The commit bus between the single writer (ingest node) and the API nodes, on Redis pub/sub: after
 * every commit the writer publishes what changed, numbered; each API node applies it to its caches and
 * its stream connections. A node that misses messages (a gap in the numbers, a Redis restart or a
 * network blip) resyncs from the store and says so; streams carry on from the next message.
 */
export const COMMIT_CHANNEL = 'tps:commits';

export interface CommitMessage {
  /** The writer's id (a new one on each start) and its message number, from 1. */
  readonly writer: string;
  readonly seq: number;
  readonly records: readonly TradeRecord[];
  /** New reserves of the pools the commit changed (DEX and Aggregate pools). */
  readonly reserves: readonly { readonly id: number; readonly base: number; readonly quote: number }[];
  /** Tokens, pairs or pools were added or renamed, or trades were rolled back: reload from the store. */
  readonly resync: boolean;
}

export class CommitPublisher {
  private seq = 0;
  private readonly writer = `${process.pid}-${Date.now().toString(36)}`;
  private constructor(private readonly redis: Redis) {}

  static create(url: string, log?: (line: string) => void): CommitPublisher {
    const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
    redis.on('error', (error: Error) => log?.(`redis (publish): ${error.message}`));
    return new CommitPublisher(redis);
  }

  /** Publishes one commit's changes (a failure is logged: API nodes see the gap and resync). */
  async publish(message: Omit<CommitMessage, 'writer' | 'seq'>): Promise<void> {
    this.seq++;
    await this.redis.publish(COMMIT_CHANNEL, JSON.stringify({ writer: this.writer, seq: this.seq, ...message }));
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

export interface SubscriberHooks {
  /** A message in sequence. */
  readonly apply: (message: CommitMessage) => void;
  /** Messages may have been missed (or the commit asks for it): reload from the store. */
  readonly resync: (why: string) => Promise<void>;
  readonly log?: (line: string) => void;
}

export class CommitSubscriber {
  private last: { writer: string; seq: number } | undefined;
  gaps = 0;
  connected = false;
  private constructor(private readonly redis: Redis) {}

  static create(url: string, hooks: SubscriberHooks): CommitSubscriber {
    // Reconnects forever (ioredis' default strategy), resubscribing by itself.
    const redis = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: (times) => Math.min(times * 200, 2_000) });
    const subscriber = new CommitSubscriber(redis);
    let first = true;
    redis.on('error', (error: Error) => hooks.log?.(`redis (subscribe): ${error.message}`));
    redis.on('close', () => (subscriber.connected = false));
    redis.on('ready', () => {
      subscriber.connected = true;
      // After a reconnect anything may have been missed while away; on the first connection, commits
      // between the node's load from the store and its subscription: reload once (not counted as a gap).
      if (!first) void subscriber.gap(hooks, 'reconnected to Redis');
      else void redis.subscribe(COMMIT_CHANNEL).then(() => hooks.resync('subscribed'));
      first = false;
    });
    redis.on('message', (_channel: string, text: string) => {
      let message: CommitMessage;
      try {
        message = JSON.parse(text) as CommitMessage;
      } catch {
        hooks.log?.('redis: a commit message that is not JSON was ignored');
        return;
      }
      const last = subscriber.last;
      subscriber.last = { writer: message.writer, seq: message.seq };
      const inSequence = last !== undefined && last.writer === message.writer && message.seq === last.seq + 1;
      const firstOfWriter = last === undefined || (last.writer !== message.writer && message.seq === 1);
      if (!inSequence && !firstOfWriter) {
        void subscriber.gap(hooks, `missed commit messages (got ${message.writer}#${message.seq} after ${last?.writer}#${last?.seq})`);
        return;
      }
      if (message.resync) void hooks.resync('the writer added to the market or rolled back');
      else hooks.apply(message);
    });
    return subscriber;
  }

  private async gap(hooks: SubscriberHooks, why: string): Promise<void> {
    this.gaps++;
    hooks.log?.(`commit bus: ${why}; resyncing from the store`);
    await hooks.resync(why);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
