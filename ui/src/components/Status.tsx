import { Label, Progress, ProgressMeasureLocation } from '@patternfly/react-core';
import type { ClusterStatus, HostStatus } from '../api/client';

// Status words are the API's own (its enums), shown as they come; only their colour is ours.
const COLOURS: Partial<Record<ClusterStatus | HostStatus, 'green' | 'red' | 'orange' | 'blue' | 'grey' | 'purple'>> = {
  installed: 'green',
  'adding-hosts': 'green',
  'added-to-existing-cluster': 'green',
  ready: 'green',
  known: 'green',
  error: 'red',
  'installing-pending-user-action': 'orange',
  insufficient: 'orange',
  'pending-for-input': 'orange',
  disconnected: 'red',
  cancelled: 'grey',
  installing: 'blue',
  'installing-in-progress': 'blue',
  'preparing-for-installation': 'blue',
  'preparing-successful': 'blue',
  finalizing: 'purple',
};

export function StatusLabel({ status }: { status: ClusterStatus | HostStatus | undefined }) {
  return (
    <Label color={(status && COLOURS[status]) || 'grey'} data-testid="status">
      {status ?? 'unknown'}
    </Label>
  );
}

export function Percent({ value, title }: { value: number; title: string }) {
  return <Progress value={value} size="sm" measureLocation={ProgressMeasureLocation.outside} aria-label={title} />;
}
