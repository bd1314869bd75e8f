import {
  Alert,
  Button,
  EmptyState,
  EmptyStateBody,
  Modal,
  ModalBody,
  ModalFooter,
  ModalHeader,
  PageSection,
  SearchInput,
  Title,
  Toolbar,
  ToolbarContent,
  ToolbarItem,
} from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { useState } from 'react';
import { api, must, Unreachable, type Cluster } from '../api/client';
import { Percent, StatusLabel } from '../components/Status';
import { useLiveReload } from '../live';
import { navigate } from '../router';

function progressOf(cluster: Cluster): number {
  const progress = cluster.progress as { total_percentage?: number } | undefined;
  return progress?.total_percentage ?? 0;
}

export function ClustersList() {
  const [clusters, setClusters] = useState<Cluster[] | null>(null);
  const [error, setError] = useState('');
  const [search, setSearch] = useState('');
  const [deleting, setDeleting] = useState<Cluster | null>(null);

  const load = async () => {
    try {
      // with_hosts: the list answer carries no host count of its own.
      const list = await must(api.GET('/api/assisted-install/v2/clusters', { params: { query: { with_hosts: true } } }));
      setClusters(list as Cluster[]);
      setError('');
    } catch (e) {
      if (!(e instanceof Unreachable)) setError((e as Error).message);
    }
  };
  useLiveReload(undefined, load);

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await must(api.DELETE('/api/assisted-install/v2/clusters/{cluster_id}', { params: { path: { cluster_id: deleting.id } } }));
    } catch (e) {
      setError((e as Error).message);
    }
    setDeleting(null);
    void load();
  };

  const needle = search.trim().toLowerCase();
  const shown = (clusters ?? []).filter(
    (c) =>
      !needle ||
      [c.name, c.status, c.openshift_version, c.base_dns_domain as string | undefined, c.id].some((v) => v?.toLowerCase().includes(needle)),
  );

  return (
    <PageSection>
      <Title headingLevel="h2">Clusters</Title>
      {error && <Alert variant="danger" isInline title={error} />}
      <Toolbar>
        <ToolbarContent>
          <ToolbarItem>
            <SearchInput aria-label="Search clusters" placeholder="Search by name, status, version" value={search} onChange={(_e, v) => setSearch(v)} onClear={() => setSearch('')} />
          </ToolbarItem>
          <ToolbarItem>
            <Button variant="primary" onClick={() => navigate('/clusters/new')}>
              Create cluster
            </Button>
          </ToolbarItem>
        </ToolbarContent>
      </Toolbar>
      {clusters !== null && shown.length === 0 ? (
        <EmptyState titleText={clusters.length === 0 ? 'No clusters yet' : 'No cluster matches'} headingLevel="h3">
          <EmptyStateBody>{clusters.length === 0 ? 'Create a cluster, then boot its hosts from the discovery image.' : 'Clear the search to see every cluster.'}</EmptyStateBody>
        </EmptyState>
      ) : (
        <Table aria-label="Clusters" variant="compact">
          <Thead>
            <Tr>
              <Th>Name</Th>
              <Th>Base domain</Th>
              <Th>Version</Th>
              <Th>Status</Th>
              <Th>Hosts</Th>
              <Th>Progress</Th>
              <Th screenReaderText="Actions" />
            </Tr>
          </Thead>
          <Tbody>
            {shown.map((c) => (
              <Tr key={c.id} data-testid={`cluster-row-${c.name}`}>
                <Td dataLabel="Name">
                  <a href={`/clusters/${c.id}`} onClick={(e) => (e.preventDefault(), navigate(`/clusters/${c.id}`))}>
                    {c.name}
                  </a>
                </Td>
                <Td dataLabel="Base domain">{String(c.base_dns_domain ?? '')}</Td>
                <Td dataLabel="Version">{c.openshift_version}</Td>
                <Td dataLabel="Status">
                  <StatusLabel status={c.status} />
                </Td>
                <Td dataLabel="Hosts">{c.hosts?.length ?? 0}</Td>
                <Td dataLabel="Progress">
                  <Percent value={progressOf(c)} title={`${c.name} progress`} />
                </Td>
                <Td dataLabel="Actions">
                  <Button variant="link" isDanger onClick={() => setDeleting(c)} aria-label={`Delete ${c.name}`}>
                    Delete
                  </Button>
                </Td>
              </Tr>
            ))}
          </Tbody>
        </Table>
      )}
      <Modal isOpen={deleting !== null} onClose={() => setDeleting(null)} variant="small" aria-labelledby="delete-title">
        <ModalHeader title={`Delete cluster ${deleting?.name ?? ''}?`} labelId="delete-title" titleIconVariant="warning" />
        <ModalBody>Its hosts, discovery images and credentials go with it.</ModalBody>
        <ModalFooter>
          <Button variant="danger" onClick={confirmDelete}>
            Delete
          </Button>
          <Button variant="link" onClick={() => setDeleting(null)}>
            Cancel
          </Button>
        </ModalFooter>
      </Modal>
    </PageSection>
  );
}
