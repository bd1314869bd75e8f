import { List, ListItem } from '@patternfly/react-core';
import type { ValidationResult } from '../api/client';

// Each failing validation with the API's own message and fix hint (both written once, beside the
// check in the orchestrator; nothing here restates them).
export function FailingList({ failing }: { failing: ValidationResult[] }) {
  return (
    <List isPlain>
      {failing.map((v) => (
        <ListItem key={v.id} className="ai-failing" data-testid={`failing-${v.id}`}>
          <strong>{v.id}</strong>: {v.message}
          {v.hint ? (
            <div className="ai-hint" data-testid="fix-hint">
              How to fix: {v.hint}
            </div>
          ) : null}
        </ListItem>
      ))}
    </List>
  );
}
