import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { failingValidations } from '../api/client';
import { FailingList } from './Validations';

// validations_info as the gateway writes it: the orchestrator's message and hint per check.
const info = JSON.stringify({
  network: [
    { id: 'api-vips-valid', status: 'failure', message: 'api vip 10.0.0.5 is outside the machine network', hint: 'Choose a free API VIP inside the machine network.' },
    { id: 'ingress-vips-valid', status: 'success', message: 'ingress vip 192.168.122.6 is valid' },
  ],
  'hosts-data': [{ id: 'sufficient-masters-count', status: 'error', message: 'could not count', hint: 'Boot more hosts.' }],
});

describe('failing validations', () => {
  it('keeps failures and errors with their hints, drops passes', () => {
    const failing = failingValidations(info);
    expect(failing.map((v) => v.id)).toEqual(['api-vips-valid', 'sufficient-masters-count']);
    expect(failing[0].hint).toBe('Choose a free API VIP inside the machine network.');
  });
  it('shows each message with its fix hint', () => {
    const html = renderToStaticMarkup(<FailingList failing={failingValidations(info)} />);
    expect(html).toContain('api vip 10.0.0.5 is outside the machine network');
    expect(html).toContain('How to fix: Choose a free API VIP inside the machine network.');
    expect(html).toContain('How to fix: Boot more hosts.');
    expect(html).not.toContain('ingress vip');
  });
  it('shows a message without a hint (an older service) on its own', () => {
    const html = renderToStaticMarkup(<FailingList failing={[{ id: 'x', status: 'failure', message: 'broken' }]} />);
    expect(html).toContain('broken');
    expect(html).not.toContain('How to fix');
  });
});
