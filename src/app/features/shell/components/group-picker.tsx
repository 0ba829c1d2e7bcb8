import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { ALL_GROUPS } from '@/shared/groups';
import { useApi } from '@/app/providers/app-providers';
import { groupsQueryOptions } from '../api/groups';

/** The DEX group (or Aggregate) whose pool the chart shows; the list comes from /groups. */
export function GroupPicker({ value, onChange }: { value: string; onChange: (group: string) => void }) {
  const api = useApi();
  const groups = useQuery(groupsQueryOptions(api));
  const id = useId();
  const names: readonly string[] = groups.data ?? ALL_GROUPS;
  const options = names.includes(value) ? names : [value, ...names];
  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        Group
      </label>
      <select
        id={id}
        className="select select--group"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        data-testid="group-picker"
      >
        {options.map((group) => (
          <option key={group} value={group}>
            {group === 'Aggregate' ? 'Aggregate (all DEXs)' : group}
          </option>
        ))}
      </select>
    </div>
  );
}
