import {
  Alert,
  Button,
  Card,
  CardBody,
  CardTitle,
  ClipboardCopy,
  ClipboardCopyVariant,
  DescriptionList,
  DescriptionListDescription,
  DescriptionListGroup,
  DescriptionListTerm,
  EmptyState,
  EmptyStateBody,
  Flex,
  FlexItem,
  Form,
  FormGroup,
  FormHelperText,
  FormSelect,
  FormSelectOption,
  HelperText,
  HelperTextItem,
  PageSection,
  TextArea,
  Title,
  ToggleGroup,
  ToggleGroupItem,
} from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { memo, useState } from 'react';
import type { Change } from '../api/changes';
import { api, download, failingValidations, fetchText, must, Unreachable, type ApiEvent, type Cluster, type ClusterStatus, type Host, type HostStatus, type InfraEnv } from '../api/client';
import { Percent, StatusLabel } from '../components/Status';
import { FailingList } from '../components/Validations';
import { useLiveReload } from '../live';
import { fieldOfReason, reasonOnField } from '../apiReasons';
import { newerOf, statusAhead, withPushedStatuses } from '../pushedStatus';

interface Disk {
  id?: string;
  name?: string;
  path?: string;
  size_bytes?: number;
  sizeBytes?: number;
}
interface Inventory {
  hostname?: string;
  cpu?: { count?: number };
  memory?: { physical_bytes?: number; physicalBytes?: number };
  disks?: Disk[];
  system_vendor?: { manufacturer?: string; product_name?: string };
}
interface HostProgress {
  current_stage?: string;
  progress_info?: string;
  installation_percentage?: number;
}

function inventoryOf(host: Host): Inventory {
  const text = host.inventory;
  if (typeof text !== 'string' || !text) return {};
  try {
    return JSON.parse(text) as Inventory;
  } catch {
    return {};
  }
}

function gib(bytes: number | undefined): string {
  return bytes ? `${Math.round(bytes / 2 ** 30)} GiB` : '–';
}

function hostName(host: Host): string {
  return (host.requested_hostname as string) || inventoryOf(host).hostname || host.id.slice(0, 8);
}

function sortHosts(hosts: Host[]): Host[] {
  return hosts.slice().sort((a, b) => hostName(a).localeCompare(hostName(b)));
}

// In place of validations and status_info older than the status pushed beside them (the re-read
// that brings them is on its way): showing them would give the new status an old reason.
function Rechecking() {
  return <span data-testid="rechecking">checking…</span>;
}

// Roles can change until the install starts.
const EDITABLE = new Set<HostStatus>(['discovering', 'known', 'insufficient', 'pending-for-input', 'disconnected', 'binding']);
const ROLES = ['auto-assign', 'master', 'worker'] as const;

// Rows re-render only when their host object changed (reads of one host keep the others').
// `day2`: the cluster takes hosts into its installed cluster (kind AddHostsCluster, after Add
// hosts); a known host there is installed on its own, from its row.
const HostRow = memo(function HostRow({ host, day2, onError, readOnly }: { host: Host; day2: boolean; onError: (message: string) => void; readOnly: boolean }) {
  const inventory = inventoryOf(host);
  const progress = (host.progress ?? {}) as HostProgress;
  const failing = failingValidations(host.validations_info);
  const editable = !readOnly && EDITABLE.has(host.status);
  const name = hostName(host);
  const patch = async (body: Record<string, unknown>) => {
    try {
      await must(
        api.PATCH('/api/assisted-install/v2/infra-envs/{infra_env_id}/hosts/{host_id}', {
          params: { path: { infra_env_id: host.infra_env_id!, host_id: host.id } },
          body,
        }),
      );
    } catch (e) {
      onError(`${name}: ${(e as Error).message}`);
    }
  };
  // A day-2 host joins the installed cluster on its own, once the user says so.
  const installDay2Host = async () => {
    try {
      await must(
        api.POST('/api/assisted-install/v2/infra-envs/{infra_env_id}/hosts/{host_id}/actions/install', {
          params: { path: { infra_env_id: host.infra_env_id!, host_id: host.id } },
        }),
      );
    } catch (e) {
      onError(`${name}: ${(e as Error).message}`);
    }
  };
  return (
    <Tr data-testid={`host-row-${name}`}>
      <Td dataLabel="Host">{name}</Td>
      <Td dataLabel="Role">
        <FormSelect
          aria-label={`Role of ${name}`}
          value={host.role ?? 'auto-assign'}
          isDisabled={!editable}
          onChange={(_e, role) => void patch({ host_role: role })}
        >
          {ROLES.map((r) => (
            <FormSelectOption key={r} value={r} label={r === 'master' ? 'control plane (master)' : r} />
          ))}
          {host.role === 'bootstrap' && <FormSelectOption value="bootstrap" label="bootstrap" />}
        </FormSelect>
        {host.role === 'auto-assign' && host.suggested_role ? <small> suggested: {host.suggested_role}</small> : null}
      </Td>
      <Td dataLabel="Hardware">
        {inventory.cpu?.count ?? '–'} CPU, {gib(inventory.memory?.physical_bytes ?? inventory.memory?.physicalBytes)}
      </Td>
      <Td dataLabel="Installation disk">
        <FormSelect
          aria-label={`Installation disk of ${name}`}
          value={(host.installation_disk_id as string) ?? ''}
          isDisabled={!editable || !inventory.disks?.length}
          onChange={(_e, id) => void patch({ disks_selected_config: [{ id, role: 'install' }] })}
        >
          {!host.installation_disk_id && <FormSelectOption value="" label="none eligible" isDisabled />}
          {(inventory.disks ?? []).map((d) => (
            <FormSelectOption key={d.id ?? d.path} value={d.id ?? d.path ?? ''} label={`${d.name ?? d.path} (${gib(d.size_bytes ?? d.sizeBytes)})`} />
          ))}
        </FormSelect>
      </Td>
      <Td dataLabel="Status">
        <StatusLabel status={host.status} />
        {host.status_info ? <div>{host.status_info}</div> : null}
      </Td>
      <Td dataLabel="Progress">
        {!readOnly && day2 && host.status === 'known' ? (
          <Button variant="primary" size="sm" data-testid={`install-host-${name}`} onClick={() => void installDay2Host()}>
            Install host
          </Button>
        ) : progress.current_stage ? (
          <>
            <div data-testid="stage">{progress.current_stage}{progress.progress_info ? ` (${progress.progress_info})` : ''}</div>
            <Percent value={progress.installation_percentage ?? 0} title={`${name} installation`} />
          </>
        ) : (
          '–'
        )}
      </Td>
      <Td dataLabel="Failing validations">
        {statusAhead(host) ? <Rechecking /> : failing.length === 0 ? '–' : <FailingList failing={failing} />}
      </Td>
    </Tr>
  );
});

// Runs what a button asks for, keeping the last failure to show beside it.
function useAttempt(): [string, (action: () => Promise<void>) => void] {
  const [error, setError] = useState('');
  const attempt = (action: () => Promise<void>) => {
    action()
      .then(() => setError(''))
      .catch((e: Error) => setError(e.message));
  };
  return [error, attempt];
}

// The discovery image of the cluster's infra-env. A cluster made without one (by aictl or the
// API, not the wizard) gets it here: "Generate discovery image" creates the infra-env, which
// needs the pull secret again (the API never gives a stored one back), then the image.
function Discovery({ cluster, infraEnv, onCreated }: { cluster: Cluster; infraEnv: InfraEnv | null; onCreated: (created: InfraEnv) => void }) {
  const [isoUrl, setIsoUrl] = useState('');
  const [imageType, setImageType] = useState<'full-iso' | 'minimal-iso' | ''>('');
  const [pullSecret, setPullSecret] = useState('');
  // What the API said about the pull secret at the last try (its own words); editing clears it.
  const [pullSecretReason, setPullSecretReason] = useState('');
  const [failure, attempt] = useAttempt();
  // The type chosen here, else the one the wizard stored.
  const chosen = imageType || (infraEnv?.type === 'minimal-iso' ? 'minimal-iso' : 'full-iso');
  // A refusal about the pull secret shows on its field, anything else above the form.
  const error = fieldOfReason(failure) === 'pull-secret' ? '' : failure;
  const imageUrlOf = async (id: string) => {
    const answer = await must(api.GET('/api/assisted-install/v2/infra-envs/{infra_env_id}/downloads/image-url', { params: { path: { infra_env_id: id } } }));
    setIsoUrl(answer.url ?? '');
  };
  const create = () =>
    attempt(async () => {
      setPullSecretReason('');
      const created = await must(
        api.POST('/api/assisted-install/v2/infra-envs', {
          body: {
            name: `${cluster.name}-discovery`,
            cluster_id: cluster.id,
            pull_secret: pullSecret.trim(),
            openshift_version: cluster.openshift_version,
            image_type: chosen,
          },
        }),
      ).catch((e: Error) => {
        if (fieldOfReason(e.message) === 'pull-secret') setPullSecretReason(reasonOnField(e.message));
        throw e;
      });
      onCreated(created as InfraEnv);
      await imageUrlOf(created.id);
    });
  const typeSelect = (
    <FormSelect
      id="image-type"
      aria-label="Discovery image type"
      value={chosen}
      onChange={(_e, v) => {
        setImageType(v as 'full-iso' | 'minimal-iso');
        setIsoUrl('');
      }}
    >
      <FormSelectOption value="full-iso" label="Full ISO (boots without reaching the image service)" />
      <FormSelectOption value="minimal-iso" label="Minimal ISO (fetches the rest at boot)" />
    </FormSelect>
  );
  // The image type and what to do with it, in one row.
  const imageRow = (...actions: React.ReactNode[]) => (
    <Flex alignItems={{ default: 'alignItemsCenter' }}>
      <FlexItem>{typeSelect}</FlexItem>
      {actions.map((action, i) => (
        <FlexItem key={i}>{action}</FlexItem>
      ))}
    </Flex>
  );
  if (!infraEnv) {
    return (
      <>
        {error && <Alert variant="danger" isInline title={error} data-testid="discovery-error" />}
        <p data-testid="no-infra-env">This cluster has no discovery image yet (it was not made with the wizard). Generate one to boot its hosts from.</p>
        <Form noValidate onSubmit={(e) => e.preventDefault()}>
          <FormGroup label="Pull secret" fieldId="discovery-pull-secret" isRequired>
            <TextArea
              id="discovery-pull-secret"
              value={pullSecret}
              onChange={(_e, v) => {
                setPullSecret(v);
                setPullSecretReason('');
              }}
              rows={3}
              aria-required
              aria-describedby={pullSecretReason ? 'discovery-pull-secret-problem' : undefined}
              validated={pullSecretReason ? 'error' : 'default'}
            />
            <FormHelperText>
              <HelperText>
                {pullSecretReason ? (
                  <HelperTextItem variant="error" id="discovery-pull-secret-problem" data-testid="discovery-pull-secret-problem">
                    {pullSecretReason}
                  </HelperTextItem>
                ) : (
                  <HelperTextItem>The discovery image carries it; the cluster's stored one is never given back.</HelperTextItem>
                )}
              </HelperText>
            </FormHelperText>
          </FormGroup>
          {imageRow(
            <Button variant="primary" onClick={create} data-testid="create-infra-env">
              Generate discovery image
            </Button>,
          )}
        </Form>
      </>
    );
  }
  const generate = () =>
    attempt(async () => {
      if (chosen !== infraEnv.type) {
        await must(
          api.PATCH('/api/assisted-install/v2/infra-envs/{infra_env_id}', { params: { path: { infra_env_id: infraEnv.id } }, body: { image_type: chosen } }),
        );
      }
      await imageUrlOf(infraEnv.id);
    });
  const ipxe = () =>
    attempt(() => download(`/api/assisted-install/v2/infra-envs/${infraEnv.id}/downloads/files?file_name=ipxe-script`, `${infraEnv.name}.ipxe`));
  return (
    <>
      {error && <Alert variant="danger" isInline title={error} />}
      {imageRow(
        <Button variant="primary" onClick={generate} data-testid="generate-iso">
          Generate discovery ISO
        </Button>,
        <Button variant="secondary" onClick={ipxe}>
          Download iPXE script
        </Button>,
      )}
      {isoUrl && (
        <>
          <p>
            <a href={isoUrl} data-testid="iso-link" download>
              Download the discovery ISO
            </a>{' '}
            (the link is signed and expires; generate it again when it does). Boot each host from it; they appear below as
            they register.
          </p>
          <ClipboardCopy isReadOnly hoverTip="Copy" clickTip="Copied" variant={ClipboardCopyVariant.expansion}>
            {`curl -fLo discovery.iso '${isoUrl}' && virt-install --name host-1 --memory 16384 --vcpus 8 --disk size=120 --cdrom discovery.iso --os-variant rhel9.0 --network network=default`}
          </ClipboardCopy>
        </>
      )}
    </>
  );
}

function Events({ events }: { events: ApiEvent[] }) {
  const [severity, setSeverity] = useState<'all' | 'warning' | 'error'>('all');
  const rank: Record<string, number> = { info: 0, warning: 1, error: 2, critical: 3 };
  const shown = events.filter((e) => severity === 'all' || (rank[e.severity ?? 'info'] ?? 0) >= rank[severity]);
  return (
    <>
      <ToggleGroup aria-label="Event severity">
        {(['all', 'warning', 'error'] as const).map((s) => (
          <ToggleGroupItem key={s} text={s === 'all' ? 'All' : s === 'warning' ? 'Warnings and errors' : 'Errors'} isSelected={severity === s} onChange={() => setSeverity(s)} />
        ))}
      </ToggleGroup>
      <Table aria-label="Events" variant="compact">
        <Thead>
          <Tr>
            <Th>Time</Th>
            <Th>Severity</Th>
            <Th>Message</Th>
          </Tr>
        </Thead>
        <Tbody>
          {shown.slice(0, 100).map((e, i) => (
            <Tr key={`${e.event_time}-${i}`}>
              <Td dataLabel="Time">{e.event_time ? new Date(e.event_time).toLocaleTimeString() : ''}</Td>
              <Td dataLabel="Severity">{e.severity}</Td>
              <Td dataLabel="Message">{e.message}</Td>
            </Tr>
          ))}
        </Tbody>
      </Table>
    </>
  );
}

function Credentials({ cluster }: { cluster: Cluster }) {
  const [password, setPassword] = useState('');
  const [error, attempt] = useAttempt();
  const file = (name: string) => `/api/assisted-install/v2/clusters/${cluster.id}/downloads/credentials?file_name=${name}`;
  const reveal = () => attempt(async () => setPassword((await fetchText(file('kubeadmin-password'))).trim()));
  return (
    <>
      {error && <Alert variant="danger" isInline title={error} />}
      <Flex>
        <FlexItem>
          <Button variant="primary" data-testid="download-kubeconfig" onClick={() => attempt(() => download(file('kubeconfig'), 'kubeconfig'))}>
            Download kubeconfig
          </Button>
        </FlexItem>
        <FlexItem>
          {password ? (
            <ClipboardCopy isReadOnly hoverTip="Copy" clickTip="Copied" data-testid="kubeadmin-password">
              {password}
            </ClipboardCopy>
          ) : (
            <Button variant="secondary" onClick={reveal}>
              Reveal kubeadmin password
            </Button>
          )}
        </FlexItem>
      </Flex>
    </>
  );
}

// `readOnly`: the agent-based installer's progress view on node 0 (no sign-in): everything is
// read from the gateway's read-only progress document, and nothing can be changed.
export function ClusterDetail({ clusterId, readOnly = false }: { clusterId: string; readOnly?: boolean }) {
  const [cluster, setCluster] = useState<Cluster | null>(null);
  const [hosts, setHosts] = useState<Host[]>([]);
  const [infraEnv, setInfraEnv] = useState<InfraEnv | null>(null);
  const [events, setEvents] = useState<ApiEvent[]>([]);
  const [error, setError] = useState('');
  const [missing, setMissing] = useState(false);

  const loadEvents = async () => {
    const list = await must(api.GET('/api/assisted-install/v2/events', { params: { query: { cluster_id: clusterId, order: 'descending', limit: 100 } } }));
    setEvents(list as ApiEvent[]);
  };
  // The cluster, with its hosts or (`withHosts` false: a change of the cluster only) without:
  // with a hundred hosts on screen, re-reading them all for a change of the cluster's own
  // status was most of what a status change cost to show.
  const readCluster = async (withHosts = true): Promise<boolean> => {
    const { data, response } = await api.GET('/api/assisted-install/v2/clusters/{cluster_id}', {
      params: { path: { cluster_id: clusterId }, query: withHosts ? {} : { 'exclude-hosts': true } },
    });
    if (response.status === 404) {
      setMissing(true);
      return false;
    }
    if (!data) throw new Error(`HTTP ${response.status}`);
    const got = data as Cluster;
    setCluster((held) => (held?.id === got.id ? newerOf(held, got) : got));
    if (withHosts) {
      setHosts((held) => {
        const byId = new Map(held.map((h) => [h.id, h]));
        return sortHosts(((got.hosts as Host[] | undefined) ?? []).map((h) => newerOf(byId.get(h.id), h)));
      });
    }
    return true;
  };
  // Only the hosts that changed are read again: with a hundred hosts on screen, re-reading the
  // cluster (which carries them all) for each host's change would be most of the cost.
  const readHosts = async (changed: Change[]) => {
    const fresh = await Promise.all(
      changed.map(async (c) => {
        if (c.change === 'deleted') return { id: c.id, host: null };
        const { data, response } = await api.GET('/api/assisted-install/v2/infra-envs/{infra_env_id}/hosts/{host_id}', {
          params: { path: { infra_env_id: c.infra_env_id, host_id: c.id } },
        });
        if (response.status === 404) return { id: c.id, host: null };
        if (!data) throw new Error(`HTTP ${response.status}`);
        return { id: c.id, host: data as Host };
      }),
    );
    setHosts((current) => {
      const byId = new Map(current.map((h) => [h.id, h]));
      for (const { id, host } of fresh) {
        if (host && host.cluster_id === clusterId) byId.set(id, newerOf(byId.get(id), host));
        else byId.delete(id);
      }
      return sortHosts([...byId.values()]);
    });
  };
  const readProgressView = async () => {
    const view = await must(api.GET('/api/assisted-install/v2/web-ui/progress'));
    setCluster(view.cluster as Cluster);
    setHosts(sortHosts((view.cluster.hosts as Host[] | undefined) ?? []));
    setEvents(view.events as ApiEvent[]);
  };
  const load = async (changes: Change[] | null) => {
    if (readOnly) {
      try {
        await readProgressView();
        setError('');
      } catch (e) {
        if (!(e instanceof Unreachable)) setError((e as Error).message);
      }
      return;
    }
    try {
      const kinds = new Set((changes ?? []).map((c) => c.kind));
      // Everything first (a cluster that is gone ends here); then what changed, side by side.
      if (changes === null && !(await readCluster())) return;
      const reads: Promise<unknown>[] = [];
      if (changes !== null && kinds.has('cluster')) reads.push(readCluster(false));
      if (changes !== null && kinds.has('host')) {
        const latest = new Map(changes.filter((c) => c.kind === 'host').map((c) => [c.id, c]));
        reads.push(readHosts([...latest.values()]));
      }
      if (changes === null || kinds.has('infra-env')) {
        reads.push(
          must(api.GET('/api/assisted-install/v2/infra-envs', { params: { query: { cluster_id: clusterId } } })).then((list) =>
            setInfraEnv(((list as InfraEnv[]) ?? [])[0] ?? null),
          ),
        );
      }
      if (changes === null || kinds.has('event')) reads.push(loadEvents());
      await Promise.all(reads);
      setError('');
    } catch (e) {
      if (!(e instanceof Unreachable)) setError((e as Error).message);
    }
  };
  // A pushed status shows at once; the re-read brings the rest of the row (validations, stage).
  const showPushedStatuses = (changes: Change[]) => {
    if (readOnly) return;
    const ofHosts = changes.filter((c) => c.kind === 'host');
    const ofCluster = changes.filter((c) => c.kind === 'cluster');
    if (ofHosts.length > 0) setHosts((held) => withPushedStatuses(held, ofHosts));
    if (ofCluster.length > 0) setCluster((held) => (held ? withPushedStatuses([held], ofCluster)[0] : held));
  };
  useLiveReload(clusterId, load, showPushedStatuses);

  const action = async (name: 'install' | 'cancel' | 'reset' | 'allow-add-hosts') => {
    try {
      await must(api.POST(`/api/assisted-install/v2/clusters/{cluster_id}/actions/${name}` as '/api/assisted-install/v2/clusters/{cluster_id}/actions/install', { params: { path: { cluster_id: clusterId } } }));
      setError('');
    } catch (e) {
      setError((e as Error).message);
    }
  };

  if (missing)
    return (
      <PageSection>
        <EmptyState titleText="Cluster not found" headingLevel="h2" data-testid="cluster-not-found">
          <EmptyStateBody>It does not exist, or it is not yours.</EmptyStateBody>
        </EmptyState>
      </PageSection>
    );
  if (!cluster) return <PageSection>{error ? <Alert variant="danger" isInline title={error} /> : 'Loading…'}</PageSection>;

  const progress = (cluster.progress ?? {}) as { total_percentage?: number };
  const status = cluster.status;
  const installing = (['preparing-for-installation', 'installing', 'finalizing', 'installing-pending-user-action'] as ClusterStatus[]).includes(status);
  // The cluster's own checks matter until the install starts; afterwards they describe the past.
  const clusterFailing = (['pending-for-input', 'insufficient', 'ready'] as ClusterStatus[]).includes(status) ? failingValidations(cluster.validations_info) : [];
  return (
    <PageSection>
      <Flex alignItems={{ default: 'alignItemsCenter' }}>
        <FlexItem>
          <Title headingLevel="h2">
            {cluster.name}.{String(cluster.base_dns_domain ?? '')}
          </Title>
        </FlexItem>
        <FlexItem data-testid="cluster-status">
          <StatusLabel status={status} />
        </FlexItem>
        {!readOnly && (
          <FlexItem align={{ default: 'alignRight' }}>
            {(status === 'ready' || status === 'insufficient' || status === 'pending-for-input') && (
              <Button variant="primary" isDisabled={status !== 'ready'} onClick={() => action('install')} data-testid="install">
                Install cluster
              </Button>
            )}{' '}
            {installing && (
              <Button variant="danger" onClick={() => action('cancel')}>
                Cancel installation
              </Button>
            )}{' '}
            {status === 'installed' && (
              <Button variant="primary" onClick={() => action('allow-add-hosts')} data-testid="add-hosts">
                Add hosts
              </Button>
            )}{' '}
            {(status === 'error' || status === 'cancelled') && (
              <Button variant="secondary" onClick={() => action('reset')}>
                Reset
              </Button>
            )}
          </FlexItem>
        )}
      </Flex>
      {error && <Alert variant="danger" isInline title={error} data-testid="cluster-error" />}
      <Card>
        <CardBody>
          <DescriptionList isHorizontal columnModifier={{ default: '2Col' }}>
            <DescriptionListGroup>
              <DescriptionListTerm>Status</DescriptionListTerm>
              <DescriptionListDescription data-testid="status-info">{statusAhead(cluster) ? <Rechecking /> : cluster.status_info}</DescriptionListDescription>
            </DescriptionListGroup>
            <DescriptionListGroup>
              <DescriptionListTerm>Version</DescriptionListTerm>
              <DescriptionListDescription>{cluster.openshift_version}</DescriptionListDescription>
            </DescriptionListGroup>
          </DescriptionList>
          <Percent value={progress.total_percentage ?? 0} title="Installation progress" />
          <div data-testid="cluster-validations">{statusAhead(cluster) ? <Rechecking /> : clusterFailing.length > 0 && <FailingList failing={clusterFailing} />}</div>
        </CardBody>
      </Card>
      {readOnly && (
        <Alert variant="info" isInline title="Read-only progress view" data-testid="read-only">
          This is the installation running on this machine (node 0 of the agent-based installer). Nothing can be changed here, and no
          credentials are shown: the kubeconfig and the kubeadmin password are in the auth/ folder where the image was created.
        </Alert>
      )}
      {!readOnly && (status === 'installed' || status === 'adding-hosts') && (
        <Card>
          <CardTitle>Credentials</CardTitle>
          <CardBody>
            <Credentials cluster={cluster} />
          </CardBody>
        </Card>
      )}
      {!readOnly && !installing && status !== 'installed' && (
        <Card>
          <CardTitle>{status === 'adding-hosts' ? 'Add hosts to the installed cluster' : 'Host discovery'}</CardTitle>
          <CardBody>
            {status === 'adding-hosts' && (
              <p data-testid="day2-help">
                Boot each new host from this discovery image. It joins the running cluster as a worker once it is known and you install
                it (Install host, in its row); the hosts already installed are not touched.
              </p>
            )}
            <Discovery cluster={cluster} infraEnv={infraEnv} onCreated={setInfraEnv} />
          </CardBody>
        </Card>
      )}
      <Card>
        <CardTitle>Hosts ({hosts.length})</CardTitle>
        <CardBody>
          {hosts.length === 0 ? (
            <EmptyState titleText="Waiting for hosts" headingLevel="h4">
              <EmptyStateBody>Hosts booted from the discovery image appear here as soon as they register.</EmptyStateBody>
            </EmptyState>
          ) : (
            <Table aria-label="Hosts" variant="compact">
              <Thead>
                <Tr>
                  <Th>Host</Th>
                  <Th>Role</Th>
                  <Th>Hardware</Th>
                  <Th>Installation disk</Th>
                  <Th>Status</Th>
                  <Th>Progress</Th>
                  <Th>Failing validations</Th>
                </Tr>
              </Thead>
              <Tbody>
                {hosts.map((h) => (
                  <HostRow key={h.id} host={h} day2={cluster.kind === 'AddHostsCluster'} onError={setError} readOnly={readOnly} />
                ))}
              </Tbody>
            </Table>
          )}
        </CardBody>
      </Card>
      <Card>
        <CardTitle>Events</CardTitle>
        <CardBody>
          <Events events={events} />
        </CardBody>
      </Card>
    </PageSection>
  );
}
