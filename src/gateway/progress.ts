import cliProgress from 'cli-progress';
import type { RuntimeHooks } from '../service/runtime';

type Progress = Parameters<NonNullable<RuntimeHooks['onProgress']>>[0];

/** A terminal progress bar for the market's backfill or catch-up (silent when not a TTY and quick). */
export function progressReporter(stream: NodeJS.WriteStream = process.stderr): { onProgress: (p: Progress) => void; stop: () => void } {
  let bar: cliProgress.SingleBar | undefined;
  let lastLine = 0;
  return {
    onProgress: (p) => {
      const total = Math.max(1, p.to - p.from);
      const done = Math.min(total, Math.max(0, p.blockTime - p.from));
      if (done >= total && !bar) return;
      if (!stream.isTTY) {
        // Plain lines in logs and CI, at most every 10 %.
        const pct = Math.floor((done / total) * 10);
        if (pct > lastLine) {
          lastLine = pct;
          stream.write(`${p.phase}: ${pct * 10}% (${p.trades} trades)\n`);
        }
        return;
      }
      if (!bar) {
        bar = new cliProgress.SingleBar(
          { format: `${p.phase === 'backfill' ? 'Backfilling history' : 'Catching up'} [{bar}] {percentage}% | {trades} trades | ETA {eta_formatted}`, hideCursor: true, stream },
          cliProgress.Presets.shades_classic,
        );
        bar.start(total, 0, { trades: 0 });
      }
      bar.update(done, { trades: p.trades });
    },
    stop: () => bar?.stop(),
  };
}
