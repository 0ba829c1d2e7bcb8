import { useEffect, useState } from 'react';

/** Copies `text` to the clipboard and says so. */
export function CopyButton({ text, label, testId }: { text: string; label: string; testId?: string }) {
  const [copied, setCopied] = useState<'idle' | 'done' | 'failed'>('idle');
  useEffect(() => {
    if (copied === 'idle') return undefined;
    const timer = setTimeout(() => setCopied('idle'), 1500);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('done');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <button
      type="button"
      className="button button--small"
      onClick={() => void copy()}
      aria-label={label}
      data-testid={testId}
    >
      {copied === 'done' ? 'Copied' : copied === 'failed' ? 'Copy failed' : 'Copy'}
      <span className="visually-hidden" aria-live="polite">
        {copied === 'done' ? 'Copied to the clipboard' : ''}
      </span>
    </button>
  );
}
