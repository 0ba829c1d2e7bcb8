import { ToggleButton } from '@/app/components/toggle-button';
import { usePreferences } from '@/app/providers/app-providers';

/** Volume, TVL, log scale and compare toggles (persisted preferences). */
export function ChartToggles() {
  const showVolume = usePreferences((s) => s.showVolume);
  const showTvl = usePreferences((s) => s.showTvl);
  const logScale = usePreferences((s) => s.logScale);
  const compare = usePreferences((s) => s.compare);
  const toggle = usePreferences((s) => s.toggle);
  return (
    <div className="button-group" role="group" aria-label="Chart options">
      <ToggleButton pressed={showVolume} onToggle={() => toggle('showVolume')} testId="toggle-volume">
        Volume
      </ToggleButton>
      <ToggleButton pressed={showTvl} onToggle={() => toggle('showTvl')} testId="toggle-tvl">
        TVL
      </ToggleButton>
      <ToggleButton
        pressed={logScale}
        onToggle={() => toggle('logScale')}
        label="Logarithmic price scale"
        testId="toggle-log"
      >
        Log
      </ToggleButton>
      <ToggleButton
        pressed={compare}
        onToggle={() => toggle('compare')}
        label="Compare DEX pools with Aggregate"
        testId="toggle-compare"
      >
        Compare
      </ToggleButton>
    </div>
  );
}
