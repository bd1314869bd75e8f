import {
  Alert,
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
} from '@patternfly/react-core';
import { useEffect, useState } from 'react';
import { api, must, type ClusterCreateParams } from '../api/client';
import { navigate } from '../router';
import { baseDomainProblem, cidrProblem, clusterNameProblem, pullSecretProblem, sshKeyProblem, vipProblem } from '../validation';

type Topology = 'sno' | 'compact' | 'ha';

const TOPOLOGIES: { value: Topology; label: string; description: string }[] = [
  { value: 'sno', label: 'Single node', description: 'One host runs everything; no VIPs.' },
  { value: 'compact', label: 'Compact (3 nodes)', description: 'Three control-plane hosts that also run workloads.' },
  { value: 'ha', label: 'Highly available', description: 'Three control-plane hosts and two or more workers.' },
];

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

export function CreateCluster() {
  const [versions, setVersions] = useState<string[]>([]);
  const [name, setName] = useState('');
  const [domain, setDomain] = useState('');
  const [version, setVersion] = useState('');
  const [pullSecret, setPullSecret] = useState('');
  const [sshKey, setSshKey] = useState('');
  const [topology, setTopology] = useState<Topology>('compact');
  const [machineNetwork, setMachineNetwork] = useState('');
  const [userManaged, setUserManaged] = useState(false);
  const [apiVip, setApiVip] = useState('');
  const [ingressVip, setIngressVip] = useState('');
  const [httpProxy, setHttpProxy] = useState('');
  const [ntp, setNtp] = useState('');
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

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
  const sno = topology === 'sno';
  const managedVips = !sno && !userManaged;
  const problems = {
    name: clusterNameProblem(name),
    domain: baseDomainProblem(domain),
    pullSecret: pullSecretProblem(pullSecret),
    sshKey: sshKeyProblem(sshKey),
    machineNetwork: cidrProblem(machineNetwork),
    apiVip: managedVips ? vipProblem(apiVip, machineNetwork, ingressVip, 'Ingress VIP') : '',
    ingressVip: managedVips ? vipProblem(ingressVip, machineNetwork, apiVip, 'API VIP') : '',
  };
  const detailsOk = !problems.name && !problems.domain && !problems.pullSecret && !problems.sshKey && version !== '';
  const networkOk = !problems.machineNetwork && !problems.apiVip && !problems.ingressVip;

  const create = async () => {
    setBusy(true);
    setError('');
    const body: ClusterCreateParams = {
      name,
      base_dns_domain: domain,
      openshift_version: version,
      pull_secret: pullSecret.trim(),
      control_plane_count: sno ? 1 : 3,
      high_availability_mode: sno ? 'None' : 'Full',
      machine_networks: [{ cidr: machineNetwork.trim() }],
      user_managed_networking: sno || userManaged,
    };
    if (sshKey.trim()) body.ssh_public_key = sshKey.trim();
    if (managedVips) {
      body.api_vips = [{ ip: apiVip.trim() }];
      body.ingress_vips = [{ ip: ingressVip.trim() }];
    }
    if (httpProxy.trim()) body.http_proxy = httpProxy.trim();
    if (ntp.trim()) body.additional_ntp_source = ntp.trim();
    try {
      const cluster = await must(api.POST('/api/assisted-install/v2/clusters', { body }));
      // Every cluster gets its discovery image definition right away: the next screen offers it.
      await must(
        api.POST('/api/assisted-install/v2/infra-envs', {
          body: {
            name: `${name}-discovery`,
            cluster_id: cluster.id,
            pull_secret: pullSecret.trim(),
            openshift_version: version,
            image_type: 'full-iso',
            ...(sshKey.trim() ? { ssh_authorized_key: sshKey.trim() } : {}),
          },
        }),
      );
      navigate(`/clusters/${cluster.id}`);
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  };

  return (
    <PageSection>
      <Title headingLevel="h2">Create cluster</Title>
      <Wizard onClose={() => navigate('/')} onSave={create} height={640} isVisitRequired>
        <WizardStep name="Cluster details" id="details" footer={{ isNextDisabled: !detailsOk }}>
          <Form onSubmit={(e) => e.preventDefault()}>
            <Field label="Cluster name" id="name" problem={problems.name} show={!!touched.name} required>
              <TextInput id="name" value={name} onChange={(_e, v) => setName(v)} onBlur={() => touch('name')} isRequired validated={touched.name && problems.name ? 'error' : 'default'} />
            </Field>
            <Field label="Base domain" id="domain" problem={problems.domain} show={!!touched.domain} helper="Cluster addresses end with NAME.BASE_DOMAIN." required>
              <TextInput id="domain" value={domain} onChange={(_e, v) => setDomain(v)} onBlur={() => touch('domain')} isRequired validated={touched.domain && problems.domain ? 'error' : 'default'} />
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
            <Field label="Pull secret" id="pull-secret" problem={problems.pullSecret} show={!!touched.pullSecret} required>
              <TextArea id="pull-secret" value={pullSecret} onChange={(_e, v) => setPullSecret(v)} onBlur={() => touch('pullSecret')} rows={3} aria-label="Pull secret" />
            </Field>
            <Field label="SSH public key" id="ssh-key" problem={problems.sshKey} show={!!touched.sshKey} helper="Lets you log in to the hosts while they install.">
              <TextArea id="ssh-key" value={sshKey} onChange={(_e, v) => setSshKey(v)} onBlur={() => touch('sshKey')} rows={2} aria-label="SSH public key" />
            </Field>
          </Form>
        </WizardStep>
        <WizardStep name="Networking" id="networking" footer={{ isNextDisabled: !networkOk }}>
          <Form onSubmit={(e) => e.preventDefault()}>
            <Field label="Machine network" id="machine-network" problem={problems.machineNetwork} show={!!touched.machineNetwork || machineNetwork !== ''} helper="The subnet the hosts' addresses are in, e.g. 192.168.122.0/24." required>
              <TextInput id="machine-network" value={machineNetwork} onChange={(_e, v) => setMachineNetwork(v)} onBlur={() => touch('machineNetwork')} />
            </Field>
            {!sno && (
              <Switch id="user-managed" label="User-managed networking (you provide the load balancer and DNS)" isChecked={userManaged} onChange={(_e, v) => setUserManaged(v)} />
            )}
            {managedVips && (
              <>
                <Field label="API VIP" id="api-vip" problem={problems.apiVip} show={!!touched.apiVip || apiVip !== ''} required>
                  <TextInput id="api-vip" value={apiVip} onChange={(_e, v) => setApiVip(v)} onBlur={() => touch('apiVip')} validated={apiVip && problems.apiVip ? 'error' : 'default'} />
                </Field>
                <Field label="Ingress VIP" id="ingress-vip" problem={problems.ingressVip} show={!!touched.ingressVip || ingressVip !== ''} required>
                  <TextInput id="ingress-vip" value={ingressVip} onChange={(_e, v) => setIngressVip(v)} onBlur={() => touch('ingressVip')} validated={ingressVip && problems.ingressVip ? 'error' : 'default'} />
                </Field>
              </>
            )}
            <FormGroup label="HTTP proxy (optional)" fieldId="http-proxy">
              <TextInput id="http-proxy" value={httpProxy} onChange={(_e, v) => setHttpProxy(v)} />
            </FormGroup>
            <FormGroup label="Additional NTP source (optional)" fieldId="ntp">
              <TextInput id="ntp" value={ntp} onChange={(_e, v) => setNtp(v)} />
            </FormGroup>
          </Form>
        </WizardStep>
        <WizardStep name="Review and create" id="review" footer={{ nextButtonText: 'Create cluster', isNextDisabled: busy || !detailsOk || !networkOk }}>
          {error && <Alert variant="danger" isInline title="The cluster was not created" data-testid="create-error">{error}</Alert>}
          <DescriptionList isHorizontal>
            {[
              ['Name', `${name}.${domain}`],
              ['Version', version],
              ['Topology', TOPOLOGIES.find((t) => t.value === topology)?.label ?? ''],
              ['Machine network', machineNetwork],
              ['Networking', sno || userManaged ? 'user-managed' : `cluster-managed, API ${apiVip}, Ingress ${ingressVip}`],
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
