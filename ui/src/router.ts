// The UI's routes on the History API: /, /clusters/new, /clusters/ID. The gateway answers
// index.html for any path without a file extension, so reloads and bookmarks work.
import { useEffect, useState } from 'react';

export function navigate(path: string) {
  window.history.pushState(null, '', path);
  window.dispatchEvent(new Event('assisted:navigate'));
}

export function usePath(): string {
  const [path, setPath] = useState(window.location.pathname);
  useEffect(() => {
    const update = () => setPath(window.location.pathname);
    window.addEventListener('popstate', update);
    window.addEventListener('assisted:navigate', update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener('assisted:navigate', update);
    };
  }, []);
  return path;
}
