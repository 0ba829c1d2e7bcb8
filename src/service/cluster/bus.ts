import { Redis } from 'ioredis';
import type { LogHook } from '../../node/log';
import type { RollbackPoint, TradeRecord } from '../store/ports';

/**
 * The commit bus between the single writer (ingest node) and the API nodes, on Redis pub/sub: after
 * every commit the writer publishes what changed, numbered (the number is stamped in the commit's
 * transaction too, so a node reloading from the store knows which messages its snapshot includes);
 * each API node applies it to its caches and its stream connections. A node that may have missed
 * messages (a gap in the numbers, a Redis restart or a network blip, a new writer) resyncs from the
 * store and says so; streams carry on from the next message.
 */
export const COMMIT_CHANNEL = 'tps:commits';

/** Longest a publish waits for Redis's answer before it counts as failed (logged; API nodes resync on the gap). */
const PUBLISH_TIMEOUT_MS = 5_000;

export interface CommitMessage {
  /** The writer's id (a new one on each start) and its message number, from 1. */
  readonly writer: string;
  readonly seq: number;
  readonly records: readonly TradeRecord[];
  /** New reserves of the pools the commit changed (DEX and Aggregate pools). */
  readonly reserves: readonly { readonly id: number; readonly base: number; readonly quote: number }[];
  /** Tokens, pairs or pools were added or renamed, or trades were rolled back: reload from the store. */
  readonly resync: boolean;
  /** The chain point a rollback went back to (told to the streams that asked). */
  readonly rollback?: RollbackPoint;
  /** When the writer published it (Unix ms; absent from older writers): nodes measure the fan-out's latency by it. */
  readonly at?: number;
}

export class CommitPublisher {
  /** This writer's id: a new one on each start, so readers see a new writer (and resync). */
  readonly writer = `${process.pid}-${Date.now().toString(36)}`;
  private seq = 0;
  private constructor(private readonly redis: Redis) {}

  /**
   * Connects to Redis, waiting up to 5 s for it: a writer starting while Redis is away carries on
   * (its publishes fail and are logged; API nodes see the gap when the messages resume, and resync).
   */
  static async connect(url: string, log?: LogHook): Promise<CommitPublisher> {
    // PUBLISH may be sent before Redis is ready (ioredis sends commands flagged `loading` then): bounded,
    // or a Redis that accepts and never answers would hold the writer's start (and each commit's message) forever.
    const redis = new Redis(url, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      commandTimeout: PUBLISH_TIMEOUT_MS,
    });
    redis.on('error', (error: Error) => log?.(`redis (publish): ${error.message}`, { level: 'warn' }));
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5_000);
      timer.unref?.();
      redis.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return new CommitPublisher(redis);
  }

  /** Takes the next message number (a commit takes it when its batch is taken, to stamp it with). */
  next(): number {
    return ++this.seq;
  }

  /** The commit position of message `seq`, as stamped in the store (`COMMIT_POSITION_META`). */
  position(seq: number): string {
    return `${this.writer}#${seq}`;
  }

  /** Publishes message `seq` (a failure is logged by the caller: API nodes see the gap and resync). */
  async publish(seq: number, message: Omit<CommitMessage, 'writer' | 'seq' | 'at'>): Promise<void> {
    await this.redis.publish(COMMIT_CHANNEL, JSON.stringify({ writer: this.writer, seq, at: Date.now(), ...message }));
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

/** The writer and message number of a commit position (`<writer>#<seq>`), if it is one. */
export function parsePosition(position: string | undefined): { writer: string; seq: number } | undefined {
  const match = position === undefined ? null : /^(.+)#(\d+)$/.exec(position);
  return match ? { writer: match[1] ?? '', seq: Number(match[2]) } : undefined;
}

export interface SubscriberHooks {
  /** A message in sequence that needs no reload: its reserves into the market. */
  readonly apply: (message: CommitMessage) => void;
  /**
   * Every message in sequence, reload or not, after `apply`: its trades and rollback to the stream
   * connections (events of an Aggregate this node does not know yet have no subscriber here).
   */
  readonly events: (message: CommitMessage) => void;
  /**
   * Reload from the store: `gap` when messages may have been missed (a gap in the numbers, a Redis
   * reconnect, a new writer), else because the commit asked for it (the market's structure changed).
   */
  readonly resync: (why: string, gap: boolean) => Promise<void>;
  readonly log?: LogHook;
}

export class CommitSubscriber {
  private last: { writer: string; seq: number } | undefined;
  gaps = 0;
  connected = false;
  private constructor(private readonly redis: Redis) {}

  static create(url: string, hooks: SubscriberHooks): CommitSubscriber {
    // Reconnects forever (ioredis' default strategy), resubscribing by itself.
    const redis = new Redis(url, {
      maxRetriesPerRequest: null,
      retryStrategy: (times) => Math.min(times * 200, 2_000),
    });
    const subscriber = new CommitSubscriber(redis);
    let first = true;
    redis.on('error', (error: Error) => hooks.log?.(`redis (subscribe): ${error.message}`, { level: 'warn' }));
    redis.on('close', () => (subscriber.connected = false));
    redis.on('ready', () => {
      subscriber.connected = true;
      // After a reconnect anything may have been missed while away; on the first connection, commits
      // between the node's load from the store and its subscription: reload once (not counted as a gap).
      if (!first) void subscriber.gap(hooks, 'reconnected to Redis');
      else void redis.subscribe(COMMIT_CHANNEL).then(() => hooks.resync('subscribed', false));
      first = false;
    });
    redis.on('message', (_channel: string, text: string) => {
      let message: CommitMessage;
      try {
        message = JSON.parse(text) as CommitMessage;
      } catch {
        hooks.log?.('redis: a commit message that is not JSON was ignored', { level: 'warn' });
        return;
      }
      const last = subscriber.last;
      subscriber.last = { writer: message.writer, seq: message.seq };
      // The first message this node sees follows its load from the store (made after subscribing).
      if (last !== undefined && last.writer !== message.writer) {
        // A new writer: the old one may have committed without publishing (killed in between).
        void subscriber.gap(hooks, `a new writer (${message.writer} after ${last.writer})`);
        return;
      }
      if (last !== undefined && message.seq !== last.seq + 1) {
        void subscriber.gap(
          hooks,
          `missed commit messages (got ${message.writer}#${message.seq} after ${last.writer}#${last.seq})`,
        );
        return;
      }
      if (message.resync) {
        hooks.events(message);
        void hooks.resync('the writer added to the market or rolled back', false);
      } else {
        hooks.apply(message);
        hooks.events(message);
      }
    });
    return subscriber;
  }

  private async gap(hooks: SubscriberHooks, why: string): Promise<void> {
    this.gaps++;
    hooks.log?.(`commit bus: ${why}; resyncing from the store`, { level: 'warn' });
    await hooks.resync(why, true);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
