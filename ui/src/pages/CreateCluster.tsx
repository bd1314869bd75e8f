import {
  Alert,
  Button,
  Card,
  CardBody,
  CardTitle,
  DescriptionList,
  DescriptionListDescription,
  DescriptionListGroup,
  DescriptionListTerm,
  Form,
  FormGroup,
  FormHelperText,
  FormSelect,
  FormSelectOption,
  HelperText,
  HelperTextItem,
  PageSection,
  Radio,
  Switch,
  TextArea,
  TextInput,
  Title,
  Wizard,
  WizardStep,
  useWizardContext,
} from '@patternfly/react-core';
import { useEffect, useState } from 'react';
import { api, fetchText, must, type ClusterCreateParams, type InfraEnvCreateParams } from '../api/client';
import { fieldOfReason, reasonOnField } from '../apiReasons';
import { checkClusterDraft, checkInfraEnvDraft, useDraftVerdict, type Verdict } from '../draftCheck';
import { EMPTY_HOST, staticNetworkConfig, type HostNetwork } from '../hostNetworking';
import { navigate } from '../router';

type Topology = 'sno' | 'compact' | 'ha';

const TOPOLOGIES: { value: Topology; label: string; description: string }[] = [
  { value: 'sno', label: 'Single node', description: 'One host runs everything; no VIPs.' },
  { value: 'compact', label: 'Compact (3 nodes)', description: 'Three control-plane hosts that also run workloads.' },
  { value: 'ha', label: 'Highly available', description: 'Three control-plane hosts and two or more workers.' },
];

// What ties a required field to its problem for assistive technology, instead of the HTML
// `required` attribute: with it, the browser validated the field itself and spoke its own words
// ("Please fill out this field."), not ours. The forms are noValidate for the same reason.
function describedBy(id: string, shown: boolean, required = true): { 'aria-required'?: true; 'aria-describedby'?: string } {
  return { ...(required ? { 'aria-required': true } : {}), ...(shown ? { 'aria-describedby': `${id}-problem` } : {}) };
}

// A field with its inline problem (shown once touched, or after a Next attempt).
function Field(props: { label: string; id: string; problem: string; show: boolean; helper?: string; required?: boolean; children: React.ReactNode }) {
  const shown = props.show && props.problem !== '';
  return (
    <FormGroup label={props.label} fieldId={props.id} isRequired={props.required}>
      {props.children}
      <FormHelperText>
        <HelperText>
          {shown ? (
            <HelperTextItem variant="error" id={`${props.id}-problem`} data-testid={`${props.id}-problem`}>
              {props.problem}
            </HelperTextItem>
          ) : props.helper ? (
            <HelperTextItem>{props.helper}</HelperTextItem>
          ) : null}
        </HelperText>
      </FormHelperText>
    </FormGroup>
  );
}

type ImageType = 'full-iso' | 'minimal-iso';

// The wizard's steps in order, and which fields the API may name each holds (by field id).
const STEPS: { id: string; name: string; fields: RegExp }[] = [
  { id: 'details', name: 'Cluster details', fields: /^(name|domain|pull-secret|ssh-key)$/ },
  { id: 'networking', name: 'Networking', fields: /network|vip|prefix|^http-proxy$|^ntp$/ },
  { id: 'host-networking', name: 'Host networking and image', fields: /^host-|^trust-bundle$/ },
  { id: 'review', name: 'Review and create', fields: /$^/ },
];

// The step that holds `field`; a reason about no field belongs to the networking step, where
// the cluster's remaining settings are.
function stepOfField(field: string) {
  return STEPS.find((step) => step.fields.test(field)) ?? STEPS[1];
}

// Inside the wizard: a link to the step that holds `field`, which then takes the focus (and so
// scrolls into view with its problem under it).
function GoToField({ field }: { field: string }) {
  const { goToStepById } = useWizardContext();
  const { id, name } = stepOfField(field);
  const go = () => {
    goToStepById(id);
    requestAnimationFrame(() => {
      const element = document.getElementById(field);
      element?.focus();
      element?.scrollIntoView({ block: 'center' });
    });
  };
  return (
    <Button variant="link" isInline onClick={go} data-testid="go-to-field">
      Go to {name}
    </Button>
  );
}

export function CreateCluster() {
  const [versions, setVersions] = useState<string[]>([]);
  const [name, setName] = useState('');
  const [domain, setDomain] = useState('');
  const [version, setVersion] = useState('');
  const [pullSecret, setPullSecret] = useState('');
  const [sshKey, setSshKey] = useState('');
  const [topology, setTopology] = useState<Topology>('compact');
  const [dualStack, setDualStack] = useState(false);
  const [machineNetwork, setMachineNetwork] = useState('');
  const [machineNetwork6, setMachineNetwork6] = useState('');
  const [userManaged, setUserManaged] = useState(false);
  const [apiVip, setApiVip] = useState('');
  const [apiVip6, setApiVip6] = useState('');
  const [ingressVip, setIngressVip] = useState('');
  const [ingressVip6, setIngressVip6] = useState('');
  const [advanced, setAdvanced] = useState(false);
  const [clusterNetwork, setClusterNetwork] = useState('10.128.0.0/14');
  const [hostPrefix, setHostPrefix] = useState('23');
  const [serviceNetwork, setServiceNetwork] = useState('172.30.0.0/16');
  const [clusterNetwork6, setClusterNetwork6] = useState('fd01::/48');
  const [hostPrefix6, setHostPrefix6] = useState('64');
  const [serviceNetwork6, setServiceNetwork6] = useState('fd02::/112');
  const [httpProxy, setHttpProxy] = useState('');
  const [ntp, setNtp] = useState('');
  const [imageType, setImageType] = useState<ImageType>('full-iso');
  const [staticIps, setStaticIps] = useState(false);
  const [hosts, setHosts] = useState<HostNetwork[]>([{ ...EMPTY_HOST }]);
  const [trustBundle, setTrustBundle] = useState('');
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  // What the API said about a field at the last attempt; editing the field clears it.
  const [serverProblems, setServerProblems] = useState<Record<string, string>>({});
  const [error, setError] = useState('');
  const [errorField, setErrorField] = useState('');
  // Once created, a retry updates the same cluster and discovery image instead of adding more.
  const [created, setCreated] = useState<{ clusterId: string; infraEnvId: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [step, setStep] = useState('details');

  useEffect(() => {
    must(api.GET('/api/assisted-install/v2/openshift-versions'))
      .then((list) => {
        const names = Object.keys(list as Record<string, unknown>);
        setVersions(names);
        const preferred = Object.entries(list as Record<string, { default?: boolean }>).find(([, v]) => v.default)?.[0];
        setVersion((current) => current || preferred || names[0] || '');
      })
      .catch((e: Error) => setError(`Versions could not be read: ${e.message}`));
  }, []);

  const touch = (id: string) => setTouched((t) => ({ ...t, [id]: true }));
  // Editing a field drops what the API said about it at the last create: the user is fixing it.
  const dropServerProblem = (id: string) =>
    setServerProblems((p) => (id in p ? Object.fromEntries(Object.entries(p).filter(([k]) => k !== id)) : p));
  const edit = (id: string, set: (v: string) => void) => (v: string) => {
    set(v);
    dropServerProblem(id);
  };
  const sno = topology === 'sno';
  const managedVips = !sno && !userManaged;

  // The cluster as the wizard will create it; on the details step only what that step asks
  // (so the API judges the fields the user is filling, not the empty networking ones).
  const clusterBody = (withNetworking = true): ClusterCreateParams => {
    const body: ClusterCreateParams = {
      name,
      base_dns_domain: domain,
      openshift_version: version,
      pull_secret: pullSecret.trim(),
      control_plane_count: sno ? 1 : 3,
      high_availability_mode: sno ? 'None' : 'Full',
    };
    if (sshKey.trim()) body.ssh_public_key = sshKey.trim();
    if (!withNetworking) return body;
    const pick = (v4: string, v6: string) => (dualStack ? [v4, v6] : [v4]).map((v) => v.trim());
    const prefixes = pick(hostPrefix, hostPrefix6);
    body.machine_networks = pick(machineNetwork, machineNetwork6).map((cidr) => ({ cidr }));
    body.cluster_networks = pick(clusterNetwork, clusterNetwork6).map((cidr, i) => ({ cidr, host_prefix: Number(prefixes[i]) }));
    body.service_networks = pick(serviceNetwork, serviceNetwork6).map((cidr) => ({ cidr }));
    body.user_managed_networking = sno || userManaged;
    if (managedVips) {
      body.api_vips = pick(apiVip, apiVip6).map((ip) => ({ ip }));
      body.ingress_vips = pick(ingressVip, ingressVip6).map((ip) => ({ ip }));
    }
    if (httpProxy.trim()) body.http_proxy = httpProxy.trim();
    if (ntp.trim()) body.additional_ntp_source = ntp.trim();
    return body;
  };

  const infraEnvFields = () => ({
    image_type: imageType,
    static_network_config: staticIps ? staticNetworkConfig(hosts) : [],
    additional_trust_bundle: trustBundle.trim(),
    ...(sshKey.trim() ? { ssh_authorized_key: sshKey.trim() } : {}),
  });
  const infraEnvBody = (): InfraEnvCreateParams => ({ name: `${name}-discovery`, pull_secret: pullSecret.trim(), openshift_version: version, ...infraEnvFields() });

  // The API's verdicts on the drafts, as the user types: the cluster from the first step, its
  // discovery image from the step that sets it up.
  const infraEnvShown = step === 'host-networking' || step === 'review';
  const clusterCheck = useDraftVerdict(checkClusterDraft, version ? clusterBody(step !== 'details') : null);
  const infraEnvCheck = useDraftVerdict(checkInfraEnvDraft, version && infraEnvShown ? infraEnvBody() : null);
  const settled = clusterCheck.settled && (!infraEnvShown || infraEnvCheck.settled);
  // Each reason on the field it names; a reason naming no field of the wizard stands apart.
  const apiProblems: Record<string, string> = {};
  const unplaced: string[] = [];
  for (const verdict of [clusterCheck.verdict, infraEnvShown ? infraEnvCheck.verdict : null] as (Verdict | null)[]) {
    if (!verdict || verdict.failed || !verdict.reason) continue;
    const field = fieldOfReason(verdict.reason);
    if (!field) unplaced.push(verdict.reason);
    else apiProblems[field] ??= reasonOnField(verdict.reason);
  }
  // The wizard's one rule of its own: the API lets a cluster wait for its base domain (it is
  // needed only to install), the wizard asks for it at once.
  const wizardProblems: Record<string, string> = domain.trim() ? {} : { domain: 'Required.' };
  // What a field shows: the API's verdict on the draft, else what it said at the last create.
  const problemOf = (id: string) => wizardProblems[id] || apiProblems[id] || serverProblems[id] || '';
  const problemFields = [...new Set([...Object.keys(wizardProblems), ...Object.keys(apiProblems), ...Object.keys(serverProblems)])].filter((id) => problemOf(id) !== '');
  const stepIndex = (id: string) => STEPS.findIndex((s) => s.id === id);
  // A problem holds up the step of its field and every step after it.
  const blocked = (stepId: string) =>
    version === '' || !settled || unplaced.length > 0 || problemFields.some((field) => stepIndex(stepOfField(field).id) <= stepIndex(stepId));
  // Problems of earlier steps' fields (after a step was revisited and changed), shown on the
  // current step with a way back.
  const elsewhere = (stepId: string) => problemFields.filter((field) => stepIndex(stepOfField(field).id) < stepIndex(stepId));
  // A field's problem shows once the field was left or has text (or after a create), or once
  // any field was left: the API names one problem at a time, and it may be about a field the
  // user has not reached yet, which then says why Next is off.
  const interacted = Object.keys(touched).length > 0;
  const shows = (id: string, value: string) => (interacted || !!touched[id] || value !== '' || !!serverProblems[id]) && problemOf(id) !== '';
  // The advanced section opens by itself when one of its fields is wrong.
  const advancedShown = advanced || problemFields.some((id) => /^(cluster-network|host-prefix|service-network)/.test(id));

  const setHost = (index: number, change: Partial<HostNetwork>, field: string) => {
    setHosts((list) => list.map((h, i) => (i === index ? { ...h, ...change } : h)));
    dropServerProblem(field);
  };

  // Creates the cluster and its discovery image (or, after a failed try, updates them), then
  // asks for the discovery Ignition: the drafts were checked already, but building the Ignition
  // also uses what only the image service knows (its settings), so a refusal there shows here,
  // on its field, instead of on the cluster's page later.
  const create = async () => {
    setBusy(true);
    setError('');
    setErrorField('');
    let ids = created;
    try {
      const body = clusterBody();
      if (!ids) {
        const cluster = await must(api.POST('/api/assisted-install/v2/clusters', { body }));
        const infraEnv = await must(
          api.POST('/api/assisted-install/v2/infra-envs', {
            body: { name: `${name}-discovery`, cluster_id: cluster.id, pull_secret: pullSecret.trim(), openshift_version: version, ...infraEnvFields() },
          }),
        );
        ids = { clusterId: cluster.id, infraEnvId: infraEnv.id };
        setCreated(ids);
      } else {
        const { openshift_version: _v, high_availability_mode: _h, ...update } = body;
        await must(api.PATCH('/api/assisted-install/v2/clusters/{cluster_id}', { params: { path: { cluster_id: ids.clusterId } }, body: update }));
        await must(api.PATCH('/api/assisted-install/v2/infra-envs/{infra_env_id}', { params: { path: { infra_env_id: ids.infraEnvId } }, body: infraEnvFields() }));
      }
      await fetchText(`/api/assisted-install/v2/infra-envs/${ids.infraEnvId}/downloads/files?file_name=discovery.ign`);
      navigate(`/clusters/${ids.clusterId}`);
    } catch (e) {
      const reason = (e as Error).message;
      const field = fieldOfReason(reason);
      if (field) setServerProblems((p) => ({ ...p, [field]: reasonOnField(reason) }));
      setErrorField(field);
      setError(ids ? `The cluster was created, but its discovery image cannot be built: ${reason}` : reason);
      setBusy(false);
    }
  };

  // A text field with its inline problem.
  const text = (label: string, id: string, value: string, set: (v: string) => void, helper?: string, required = true) => (
    <Field label={label} id={id} problem={problemOf(id)} show={shows(id, value)} helper={helper} required={required}>
      <TextInput id={id} value={value} onChange={(_e, v) => edit(id, set)(v)} onBlur={() => touch(id)} {...describedBy(id, shows(id, value), required)} validated={shows(id, value) ? 'error' : 'default'} />
    </Field>
  );
  // A step's footer: Next held while the API checks the draft or a problem stands.
  const footer = (stepId: string) => ({ isNextDisabled: blocked(stepId) });
  // Problems this step cannot show on its own fields: of an earlier step's field, or of none.
  const apart = (stepId: string) => {
    const fields = elsewhere(stepId);
    if (fields.length === 0 && unplaced.length === 0) return null;
    return (
      <Alert variant="danger" isInline isPlain title="The API refuses this draft" data-testid="draft-problem">
        {unplaced.join(' ')}
        {fields.map((field) => (
          <p key={field}>
            {problemOf(field)} <GoToField field={field} />
          </p>
        ))}
      </Alert>
    );
  };

  return (
    <PageSection>
      <Title headingLevel="h2">Create cluster</Title>
      <Wizard onClose={() => navigate('/')} onSave={create} onStepChange={(_e, current) => setStep(String(current.id))} height={720} isVisitRequired>
        <WizardStep name="Cluster details" id="details" footer={footer('details')}>
          <Form noValidate onSubmit={(e) => e.preventDefault()}>
            {apart('details')}
            <Field label="Cluster name" id="name" problem={problemOf('name')} show={shows('name', name)} required>
              <TextInput id="name" value={name} onChange={(_e, v) => setName(v)} onBlur={() => touch('name')} {...describedBy('name', shows('name', name))} validated={shows('name', name) ? 'error' : 'default'} />
            </Field>
            <Field label="Base domain" id="domain" problem={problemOf('domain')} show={shows('domain', domain)} helper="Cluster addresses end with NAME.BASE_DOMAIN." required>
              <TextInput id="domain" value={domain} onChange={(_e, v) => setDomain(v)} onBlur={() => touch('domain')} {...describedBy('domain', shows('domain', domain))} validated={shows('domain', domain) ? 'error' : 'default'} />
            </Field>
            <FormGroup label="OpenShift version" fieldId="version" isRequired>
              <FormSelect id="version" value={version} onChange={(_e, v) => setVersion(v)} aria-label="OpenShift version">
                {versions.map((v) => (
                  <FormSelectOption key={v} value={v} label={v} />
                ))}
              </FormSelect>
            </FormGroup>
            <FormGroup label="Topology" role="radiogroup" fieldId="topology" isStack>
              {TOPOLOGIES.map((t) => (
                <Radio key={t.value} id={`topology-${t.value}`} name="topology" label={t.label} description={t.description} isChecked={topology === t.value} onChange={() => setTopology(t.value)} />
              ))}
            </FormGroup>
            <Field label="Pull secret" id="pull-secret" problem={problemOf('pull-secret')} show={shows('pull-secret', pullSecret)} required>
              <TextArea id="pull-secret" value={pullSecret} onChange={(_e, v) => setPullSecret(v)} onBlur={() => touch('pull-secret')} rows={3} aria-label="Pull secret" {...describedBy('pull-secret', shows('pull-secret', pullSecret))} />
            </Field>
            <Field label="SSH public key" id="ssh-key" problem={problemOf('ssh-key')} show={shows('ssh-key', sshKey)} helper="Lets you log in to the hosts while they install.">
              <TextArea id="ssh-key" value={sshKey} onChange={(_e, v) => setSshKey(v)} onBlur={() => touch('ssh-key')} rows={2} aria-label="SSH public key" {...describedBy('ssh-key', shows('ssh-key', sshKey), false)} />
            </Field>
          </Form>
        </WizardStep>
        <WizardStep name="Networking" id="networking" footer={footer('networking')}>
          <Form noValidate onSubmit={(e) => e.preventDefault()}>
            {apart('networking')}
            <FormGroup label="IP stack" role="radiogroup" fieldId="stack" isInline>
              <Radio id="stack-ipv4" name="stack" label="IPv4" isChecked={!dualStack} onChange={() => setDualStack(false)} />
              <Radio id="stack-dual" name="stack" label="Dual stack (IPv4 and IPv6)" isChecked={dualStack} onChange={() => setDualStack(true)} />
            </FormGroup>
            {text('Machine network', 'machine-network', machineNetwork, setMachineNetwork, "The subnet the hosts' addresses are in, e.g. 192.168.122.0/24.")}
            {dualStack && text('Machine network (IPv6)', 'machine-network-6', machineNetwork6, setMachineNetwork6, "The hosts' IPv6 subnet, e.g. fd00:1::/64.")}
            {!sno && (
              <Switch id="user-managed" label="User-managed networking (you provide the load balancer and DNS)" isChecked={userManaged} onChange={(_e, v) => setUserManaged(v)} />
            )}
            {managedVips && (
              <>
                {text('API VIP', 'api-vip', apiVip, setApiVip)}
                {text('Ingress VIP', 'ingress-vip', ingressVip, setIngressVip)}
                {dualStack && text('API VIP (IPv6)', 'api-vip-6', apiVip6, setApiVip6)}
                {dualStack && text('Ingress VIP (IPv6)', 'ingress-vip-6', ingressVip6, setIngressVip6)}
              </>
            )}
            {text('HTTP proxy (optional)', 'http-proxy', httpProxy, setHttpProxy, undefined, false)}
            {text('Additional NTP source (optional)', 'ntp', ntp, setNtp, undefined, false)}
            <Switch id="advanced-networking" label="Advanced: cluster and service networks" isChecked={advancedShown} onChange={(_e, v) => setAdvanced(v)} />
            {advancedShown && (
              <>
                {text('Cluster network', 'cluster-network', clusterNetwork, setClusterNetwork, 'Pod addresses, split into one slice per host.')}
                {text('Host prefix', 'host-prefix', hostPrefix, setHostPrefix, "Each host's slice of the cluster network.")}
                {text('Service network', 'service-network', serviceNetwork, setServiceNetwork, 'Addresses of Kubernetes services.')}
                {dualStack && text('Cluster network (IPv6)', 'cluster-network-6', clusterNetwork6, setClusterNetwork6)}
                {dualStack && text('Host prefix (IPv6)', 'host-prefix-6', hostPrefix6, setHostPrefix6)}
                {dualStack && text('Service network (IPv6)', 'service-network-6', serviceNetwork6, setServiceNetwork6)}
              </>
            )}
          </Form>
        </WizardStep>
        <WizardStep name="Host networking and image" id="host-networking" footer={footer('host-networking')}>
          <Form noValidate onSubmit={(e) => e.preventDefault()}>
            {apart('host-networking')}
            <FormGroup label="Discovery image" role="radiogroup" fieldId="image-type" isStack>
              <Radio id="image-full" name="image-type" label="Full ISO" description="Boots without network access to the image service (about 1 GB)." isChecked={imageType === 'full-iso'} onChange={() => setImageType('full-iso')} />
              <Radio id="image-minimal" name="image-type" label="Minimal ISO" description="Small; fetches the rest over the network at boot." isChecked={imageType === 'minimal-iso'} onChange={() => setImageType('minimal-iso')} />
            </FormGroup>
            <Switch id="static-ips" label="Static IP addresses: an NMState YAML per host" isChecked={staticIps} onChange={(_e, v) => setStaticIps(v)} />
            {staticIps &&
              hosts.map((host, i) => (
                <Card key={i} isCompact data-testid={`static-host-${i}`}>
                  <CardTitle component="h3">Host {i + 1}</CardTitle>
                  <CardBody>
                    <Field label="MAC address" id={`host-${i}-mac`} problem={problemOf(`host-${i}-mac`)} show={shows(`host-${i}-mac`, host.mac)} helper="The MAC of the interface that identifies this host." required>
                      <TextInput id={`host-${i}-mac`} value={host.mac} onChange={(_e, v) => setHost(i, { mac: v }, `host-${i}-mac`)} onBlur={() => touch(`host-${i}-mac`)} {...describedBy(`host-${i}-mac`, shows(`host-${i}-mac`, host.mac))} />
                    </Field>
                    <Field label="Interface name in the YAML" id={`host-${i}-nic`} problem={problemOf(`host-${i}-nic`)} show={shows(`host-${i}-nic`, host.nic)} required>
                      <TextInput id={`host-${i}-nic`} value={host.nic} onChange={(_e, v) => setHost(i, { nic: v }, `host-${i}-nic`)} onBlur={() => touch(`host-${i}-nic`)} {...describedBy(`host-${i}-nic`, shows(`host-${i}-nic`, host.nic))} />
                    </Field>
                    <Field label="NMState YAML" id={`host-${i}-yaml`} problem={problemOf(`host-${i}-yaml`)} show={shows(`host-${i}-yaml`, host.yaml)} required>
                      <TextArea id={`host-${i}-yaml`} value={host.yaml} onChange={(_e, v) => setHost(i, { yaml: v }, `host-${i}-yaml`)} onBlur={() => touch(`host-${i}-yaml`)} rows={10} className="ai-mono" aria-label={`NMState YAML of host ${i + 1}`} {...describedBy(`host-${i}-yaml`, shows(`host-${i}-yaml`, host.yaml))} validated={shows(`host-${i}-yaml`, host.yaml) ? 'error' : 'default'} />
                    </Field>
                    {hosts.length > 1 && (
                      <Button variant="secondary" isDanger onClick={() => setHosts((list) => list.filter((_h, j) => j !== i))}>
                        Remove host {i + 1}
                      </Button>
                    )}
                  </CardBody>
                </Card>
              ))}
            {staticIps && (
              <Button variant="secondary" onClick={() => setHosts((list) => [...list, { ...EMPTY_HOST }])} data-testid="add-static-host">
                Add host
              </Button>
            )}
            <Field label="Additional trust bundle (optional)" id="trust-bundle" problem={problemOf('trust-bundle')} show={shows('trust-bundle', trustBundle)} helper="PEM certificates the hosts trust, e.g. your registry's or proxy's CA.">
              <TextArea id="trust-bundle" value={trustBundle} onChange={(_e, v) => edit('trust-bundle', setTrustBundle)(v)} rows={4} className="ai-mono" aria-label="Additional trust bundle" {...describedBy('trust-bundle', shows('trust-bundle', trustBundle), false)} />
            </Field>
          </Form>
        </WizardStep>
        <WizardStep name="Review and create" id="review" footer={{ nextButtonText: created ? 'Try again' : 'Create cluster', isNextDisabled: busy || blocked('review') }}>
          {apart('review')}
          {error && (
            <Alert variant="danger" isInline title={created ? 'The discovery image cannot be built' : 'The cluster was not created'} data-testid="create-error">
              {error} {errorField && <GoToField field={errorField} />}
            </Alert>
          )}
          <DescriptionList isHorizontal>
            {[
              ['Name', `${name}.${domain}`],
              ['Version', version],
              ['Topology', TOPOLOGIES.find((t) => t.value === topology)?.label ?? ''],
              ['Machine network', dualStack ? `${machineNetwork}, ${machineNetwork6}` : machineNetwork],
              ['Networking', sno || userManaged ? 'user-managed' : `cluster-managed, API ${dualStack ? `${apiVip}, ${apiVip6}` : apiVip}, Ingress ${dualStack ? `${ingressVip}, ${ingressVip6}` : ingressVip}`],
              ['Cluster network', dualStack ? `${clusterNetwork} (/${hostPrefix}), ${clusterNetwork6} (/${hostPrefix6})` : `${clusterNetwork} (/${hostPrefix} per host)`],
              ['Service network', dualStack ? `${serviceNetwork}, ${serviceNetwork6}` : serviceNetwork],
              ['Discovery image', imageType === 'full-iso' ? 'full ISO' : 'minimal ISO'],
              ['Static networking', staticIps ? `${hosts.length} host${hosts.length === 1 ? '' : 's'}` : 'DHCP'],
              ['Trust bundle', trustBundle.trim() ? `${trustBundle.match(/BEGIN CERTIFICATE/g)?.length ?? 0} certificate(s)` : 'none'],
            ].map(([term, value]) => (
              <DescriptionListGroup key={term}>
                <DescriptionListTerm>{term}</DescriptionListTerm>
                <DescriptionListDescription>{value}</DescriptionListDescription>
              </DescriptionListGroup>
            ))}
          </DescriptionList>
        </WizardStep>
      </Wizard>
    </PageSection>
  );
}

