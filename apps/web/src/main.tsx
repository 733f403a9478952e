import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { FileBrowser } from './file-browser';
import { RepoList } from './repo-list';
import './style.css';

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

function App() {
  const hash = useHash();
  const m = /^#\/repos\/([^/]+)\/?(.*)$/.exec(hash);
  return (
    <>
      <header>
        <a href="#/" className="brand">
          Trove
        </a>
      </header>
      <main>
        {m ? (
          <FileBrowser repo={decodeURIComponent(m[1]!)} prefix={m[2] ?? ''} />
        ) : (
          <>
            <h1>Repositories</h1>
            <RepoList />
          </>
        )}
      </main>
    </>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
