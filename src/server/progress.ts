import cliProgress from 'cli-progress';
import type { LogHook } from '../node/log';
import type { RuntimeHooks } from '../service/service-runtime';

type Progress = Parameters<NonNullable<RuntimeHooks['onProgress']>>[0];

const TITLES: Record<Progress['phase'], string> = {
  backfill: 'Backfilling history',
  'catch-up': 'Catching up',
  bars: 'Building bars',
};

/**
 * Terminal progress bars for the start's phases: the backfill or catch-up, then the bars of a first
 * start. Lines at most every 10 % when not a TTY (log lines through `log` when given, with the phase,
 * percent and trades as fields; else written to `stream`); nothing for a phase already done.
 */
export function progressReporter(
  stream: NodeJS.WriteStream = process.stderr,
  log?: LogHook,
): { onProgress: (p: Progress) => void; stop: () => void } {
  let bar: cliProgress.SingleBar | undefined;
  let phase: Progress['phase'] | undefined;
  let lastLine = 0;
  let shown = false;
  return {
    onProgress: (p) => {
      if (p.phase !== phase) {
        bar?.stop();
        bar = undefined;
        phase = p.phase;
        lastLine = 0;
        shown = false;
      }
      const total = Math.max(1, p.total);
      const done = Math.min(total, Math.max(0, p.done));
      // A phase whose first report is its end (nothing to catch up, a small market) stays silent.
      if (done >= total && !shown) return;
      shown = true;
      if (!stream.isTTY) {
        const pct = Math.floor((done / total) * 10);
        if (pct > lastLine) {
          lastLine = pct;
          const line = `${p.phase}: ${pct * 10}% (${p.trades} trades)`;
          if (log) log(line, { phase: p.phase, percent: pct * 10, trades: p.trades });
          else stream.write(`${line}\n`);
        }
        return;
      }
      if (!bar) {
        bar = new cliProgress.SingleBar(
          {
            format: `${TITLES[p.phase]} [{bar}] {percentage}% | {trades} trades | ETA {eta_formatted}`,
            hideCursor: true,
            stream,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(total, 0, { trades: 0 });
      }
      bar.update(done, { trades: p.trades });
      if (done >= total) {
        // Done: end the line now, so that what the start logs next starts on its own line.
        bar.stop();
        bar = undefined;
      }
    },
    stop: () => bar?.stop(),
  };
}
