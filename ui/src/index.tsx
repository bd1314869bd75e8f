import '@patternfly/react-core/dist/styles/base.css';
import './app.css';
import { createRoot } from 'react-dom/client';
import { App } from './App';

createRoot(document.getElementById('root')!).render(<App />);
