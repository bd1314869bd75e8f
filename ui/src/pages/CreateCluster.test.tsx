import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { CreateCluster } from './CreateCluster';
import { SignIn } from './SignIn';

// The browser validates a field marked `required` (or typed, or with a pattern) itself and
// shows its own bubble ("Please fill out this field."): none of the wizard's or the sign-in's
// fields may be, and their forms are noValidate, so every message is the product's.
function browserConstraints(html: string): string[] {
  return [...html.matchAll(/<(input|textarea|select)\b[^>]*>/g)]
    .map((m) => m[0])
    .filter((tag) => /\s(required|pattern|minlength|maxlength|min|max)(=|\s|>)/.test(tag) || /\stype="(email|url|number)"/.test(tag));
}

describe('the wizard and the sign-in speak for themselves', () => {
  it('leave no field to the browser’s constraint validation', () => {
    for (const html of [renderToStaticMarkup(<CreateCluster />), renderToStaticMarkup(<SignIn onSignedIn={() => {}} />)]) {
      expect(browserConstraints(html)).toEqual([]);
      const forms = [...html.matchAll(/<form\b[^>]*>/g)].map((m) => m[0]);
      expect(forms.length).toBeGreaterThan(0);
      for (const form of forms) expect(form).toContain('novalidate');
    }
  });
  it('still tell assistive technology which fields are required', () => {
    const html = renderToStaticMarkup(<CreateCluster />);
    expect(html).toMatch(/<input[^>]*id="name"[^>]*aria-required="true"|<input[^>]*aria-required="true"[^>]*id="name"/);
    expect(html).toMatch(/<input[^>]*id="domain"[^>]*aria-required="true"|<input[^>]*aria-required="true"[^>]*id="domain"/);
  });
});
