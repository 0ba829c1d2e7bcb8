import { lazy, type ComponentType } from 'react';

/**
 * A component in a chunk of its own, loaded on first render (as `React.lazy`) or ahead of it with
 * `preload()`. Once the chunk is in, it renders the component itself: a part preloaded before the page
 * renders it never suspends, so it skips React's Suspense throttling (content that resolves after a
 * fallback was shown is held back until about 300 ms after that fallback), which cost the market
 * overview's first rows about 270 ms when the page opened on it.
 */
export function lazyPart<P extends object>(
  load: () => Promise<ComponentType<P>>,
): { Part: ComponentType<P>; preload: () => Promise<ComponentType<P>> } {
  let loaded: ComponentType<P> | undefined;
  let pending: Promise<ComponentType<P>> | undefined;
  const preload = () => {
    pending ??= load().then(
      (component) => (loaded = component),
      (error: unknown) => {
        // A chunk that could not be fetched is asked again next time (the part's boundary says so meanwhile).
        pending = undefined;
        throw error;
      },
    );
    return pending;
  };
  const Lazy = lazy(() => preload().then((component) => ({ default: component })));
  function Part(props: P) {
    const Component = loaded ?? Lazy;
    return <Component {...props} />;
  }
  return { Part, preload };
}
