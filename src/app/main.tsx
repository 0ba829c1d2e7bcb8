import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <main>
        <h1>Cardano DEX Charts</h1>
      </main>
    </StrictMode>,
  );
}
