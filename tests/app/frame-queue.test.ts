import { describe, expect, it } from 'vitest';
import { FrameQueue } from '../../src/app/lib/frame-queue';

const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));

describe('FrameQueue', () => {
  it('runs a job once on the next frame however often it was asked, and not when cancelled', async () => {
    const queue = new FrameQueue();
    const ran: string[] = [];
    const a = () => ran.push('a');
    const b = () => ran.push('b');
    queue.request(a);
    queue.request(b);
    queue.request(a);
    expect(ran).toEqual([]);
    await nextFrame();
    await nextFrame();
    expect(ran).toEqual(['a', 'b']);
    queue.request(a);
    queue.cancel(a);
    await nextFrame();
    await nextFrame();
    expect(ran).toEqual(['a', 'b']);
  });

  it('with one job per frame, jobs take turns in the order asked, and one asked again waits for its turn', async () => {
    const queue = new FrameQueue(1);
    const ran: string[] = [];
    const job = (name: string) => () => void ran.push(name);
    const jobs = { a: job('a'), b: job('b'), c: job('c') };
    queue.request(jobs.a);
    queue.request(jobs.b);
    queue.request(jobs.c);
    await nextFrame();
    expect(ran).toEqual(['a']);
    // Asked again while b and c wait: it goes after them.
    queue.request(jobs.a);
    for (let i = 0; i < 6 && ran.length < 4; i++) await nextFrame();
    expect(ran).toEqual(['a', 'b', 'c', 'a']);
  });
});

describe('FrameQueue with an interval', () => {
  it('runs at most once per interval: a job asked right after a run waits for the interval, then a frame', async () => {
    const queue = new FrameQueue(Number.POSITIVE_INFINITY, 100);
    const runs: number[] = [];
    const job = () => void runs.push(performance.now());
    queue.request(job);
    await nextFrame();
    await nextFrame();
    expect(runs).toHaveLength(1);
    // Asked again at once, and again while it waits: one run, no sooner than 100 ms after the first.
    queue.request(job);
    await nextFrame();
    queue.request(job);
    await nextFrame();
    expect(runs).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await nextFrame();
    expect(runs).toHaveLength(2);
    expect((runs[1] ?? 0) - (runs[0] ?? 0)).toBeGreaterThanOrEqual(100);
  });
});
