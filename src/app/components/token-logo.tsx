import { useQuery } from '@tanstack/react-query';
import { tokenLogoQueryOptions } from '@/app/api/token-logo';
import { useApi } from '@/app/providers/app-providers';

const AVATAR_COLOURS = ['#3b5bdb', '#0ca678', '#e8590c', '#ae3ec9', '#1098ad', '#d6336c', '#5c940d', '#7048e8'];

function colourOf(text: string): string {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (hash * 31 + text.charCodeAt(i)) >>> 0;
  return AVATAR_COLOURS[hash % AVATAR_COLOURS.length] ?? '#3b5bdb';
}

/**
 * A token's logo (the gateway's base64 PNG), or a coloured avatar with its initials when it has none
 * (ADA, tokens without a logo, while loading, on error). `ask` false: the logo is not asked for here,
 * only shown once something else has fetched it (a long list asks its rows' logos after they are on
 * screen, not while rendering them: see the market overview's table).
 */
export function TokenLogo({
  unit,
  ticker,
  size = 24,
  ask = true,
}: {
  unit: string;
  ticker: string;
  size?: number;
  ask?: boolean;
}) {
  const api = useApi();
  const logo = useQuery({ ...tokenLogoQueryOptions(api, unit), enabled: ask && unit !== '' });
  const style = { width: size, height: size };
  if (logo.data) {
    return (
      <img
        className="token-logo"
        src={`data:image/png;base64,${logo.data}`}
        alt=""
        width={size}
        height={size}
        style={style}
        data-testid="token-logo"
      />
    );
  }
  return (
    <span
      className="token-logo token-logo--fallback"
      aria-hidden="true"
      style={{ ...style, background: unit === '' ? '#0033ad' : colourOf(unit), fontSize: Math.round(size * 0.4) }}
      data-testid="token-logo-fallback"
    >
      {(ticker || '?').slice(0, 2).toUpperCase()}
    </span>
  );
}
