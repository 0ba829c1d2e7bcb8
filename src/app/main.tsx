import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { gatewayInfoQueryOptions } from './features/shell';
import { AppProviders } from './providers/app-providers';
import { createAppServices } from './providers/app-services';
import './styles/app.css';

performance.mark('app:start');
const root = document.getElementById('root');
if (root) {
  // One datafeed for the app, over the browser's fetch and EventSource, through the same-origin gateway.
  const services = createAppServices({
    fetch: (input, init) => window.fetch(input, init),
    ...(typeof window.EventSource === 'function' ? { EventSource: window.EventSource } : {}),
  });
  // Asked before the first render (index.html preloads it): the default pair is known by the time the
  // chart mounts, so its bars load at once.
  void services.queryClient.prefetchQuery(gatewayInfoQueryOptions(services.api));
  createRoot(root).render(
    <StrictMode>
      <AppProviders services={services}>
        <App />
      </AppProviders>
    </StrictMode>,
  );
}
