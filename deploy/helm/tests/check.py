"""Checks what the chart renders (`helm template`, see README "Checking the chart").

Usage: check.py SCHEMA VALUES_YAML FLAGS_DIR RENDERED_DIR IMAGES_BUILD_SH
  SCHEMA        values.schema.json
  VALUES_YAML   the chart's values.yaml
  FLAGS_DIR     <binary>.env: the ASSISTED_* variables each binary's --help names;
                <binary>.path: the binary
  RENDERED_DIR  <scenario>.yaml (helm template's output) and <scenario>.values.yaml (its values
                files, one YAML document each, merged in order like helm's -f)
  IMAGES_BUILD_SH  deploy/images/build.sh: which image holds which binaries, and its user

For each scenario: the values (values.yaml with the scenario's file over it) satisfy the schema;
every rendered document parses as YAML and is a Kubernetes object of a known apiVersion/kind
with the fields the API server requires; and the objects agree with each other and with the
binaries: every Service, NetworkPolicy, PodDisruptionBudget and ServiceMonitor selects pods or
Services that exist, named ports exist on the pods, volume mounts name volumes, every
ASSISTED_* variable is a flag of the container's binary and its value parses (the binary,
run with --version and the container's environment, exits 0), every file an env variable names lies
under a mount, every service address names a Service port, and the internal certificate covers
every internal address; and each container's image is one deploy/images builds, holding the
command it runs, with the user the pod runs as; and the helm test Pod asks every gRPC port of
the release for its health (the internal ones over the internal mutual TLS when the services use
it, the public ones in plaintext unless under `tls`), with certificate files under its mounts,
and the NetworkPolicies let it reach each. Prints one line per problem; exits 1 if there is any.
"""

import copy
import json
import os
import re
import subprocess
import sys

import jsonschema
import yaml

# The apiVersion each kind the chart may render must have.
KNOWN_KINDS = {
    "Deployment": "apps/v1",
    "Service": "v1",
    "Secret": "v1",
    "Pod": "v1",
    "PersistentVolumeClaim": "v1",
    "NetworkPolicy": "networking.k8s.io/v1",
    "Ingress": "networking.k8s.io/v1",
    "PodDisruptionBudget": "policy/v1",
    "ServiceMonitor": "monitoring.coreos.com/v1",
    "Certificate": "cert-manager.io/v1",
    "Issuer": "cert-manager.io/v1",
}
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
DNS_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
PORT_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
ENV_NAME = re.compile(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$")
PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
# Container names and the binary whose flags their ASSISTED_* variables must be.
BINARY_OF_CONTAINER = {
    "inventory": "assisted-inventory",
    "orchestrator": "assisted-orchestrator",
    "image": "assisted-image",
    "gateway": "assisted-gateway",
}
# Env variables naming files the binary opens.
FILE_ENV = re.compile(r"^ASSISTED_.*(_FILE|_CERT|_KEY|_CA|_CLIENT_CA)$")
# Env variables naming another service, host:port, inside the cluster.
ADDRESS_ENV = ("ASSISTED_INVENTORY_ADDRESS", "ASSISTED_IMAGE_ADDRESS")


class Checker:
    def __init__(self, scenario):
        self.scenario = scenario
        self.problems = []

    def fail(self, where, message):
        self.problems.append(f"{self.scenario}: {where}: {message}")


def deep_merge(base, over):
    for key, value in over.items():
        if value is None:
            base.pop(key, None)
        elif isinstance(value, dict) and isinstance(base.get(key), dict):
            deep_merge(base[key], value)
        else:
            base[key] = value
    return base


def get(obj, *path, default=None):
    for key in path:
        if not isinstance(obj, dict) or key not in obj:
            return default
        obj = obj[key]
    return obj


def selects(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def expression_selects(selector, labels):
    """A LabelSelector (matchLabels and matchExpressions with In)."""
    if not all(labels.get(k) == v for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    for expression in selector.get("matchExpressions", []):
        if expression["operator"] != "In" or labels.get(expression["key"]) not in expression["values"]:
            return False
    return True


def check_metadata(c, where, obj):
    name = get(obj, "metadata", "name")
    if not isinstance(name, str) or len(name) > 253 or not DNS_SUBDOMAIN.match(name):
        c.fail(where, f"metadata.name {name!r} is not a DNS subdomain")
    if obj["kind"] == "Service" and (not isinstance(name, str) or len(name) > 63 or not DNS_LABEL.match(name)):
        c.fail(where, f"Service name {name!r} is not a DNS-1035 label")
    for field in ("labels", "annotations"):
        for key, value in (get(obj, "metadata", field) or {}).items():
            if not isinstance(value, str):
                c.fail(where, f"metadata.{field}.{key} is {type(value).__name__}, not a string")
            elif field == "labels" and (len(value) > 63 or not LABEL_VALUE.match(value)):
                c.fail(where, f"label {key}={value!r} is not a valid label value")


def check_container(c, where, container, volumes, flags):
    name = container.get("name")
    if not name or not container.get("image"):
        c.fail(where, "container without name or image")
    port_names = set()
    port_numbers = set()
    for port in container.get("ports", []):
        if not isinstance(port.get("containerPort"), int) or not 0 < port["containerPort"] < 65536:
            c.fail(where, f"containerPort {port.get('containerPort')!r} is not a port number")
        port_numbers.add(port.get("containerPort"))
        if "name" in port:
            if len(port["name"]) > 15 or not PORT_NAME.match(port["name"]) or port["name"] in port_names:
                c.fail(where, f"port name {port['name']!r} is invalid or repeated")
            port_names.add(port["name"])
    env_names = set()
    mounts = {}
    for mount in container.get("volumeMounts", []):
        if mount.get("name") not in volumes:
            c.fail(where, f"volumeMount {mount.get('name')!r} names no volume")
        if mount.get("mountPath") in mounts.values():
            c.fail(where, f"two volumes mounted at {mount.get('mountPath')}")
        mounts[mount.get("name")] = mount.get("mountPath")
    binary = BINARY_OF_CONTAINER.get(name)
    for env in container.get("env", []):
        env_name = env.get("name")
        if not isinstance(env_name, str) or not ENV_NAME.match(env_name) or env_name in env_names:
            c.fail(where, f"env name {env_name!r} is invalid or repeated")
            continue
        env_names.add(env_name)
        if ("value" in env) == ("valueFrom" in env):
            c.fail(where, f"env {env_name} needs exactly one of value and valueFrom")
        if "value" in env and not isinstance(env["value"], str):
            c.fail(where, f"env {env_name} value is {type(env['value']).__name__}, not a string")
        if "valueFrom" in env:
            source = env["valueFrom"]
            if not (get(source, "secretKeyRef", "name") and get(source, "secretKeyRef", "key")) and not get(
                source, "fieldRef", "fieldPath"
            ):
                c.fail(where, f"env {env_name} valueFrom is neither a secretKeyRef nor a fieldRef")
        if binary and env_name.startswith("ASSISTED_") and env_name not in flags[binary]:
            c.fail(where, f"env {env_name} is no flag of {binary} (its --help names no such variable)")
        value = env.get("value")
        if isinstance(value, str) and FILE_ENV.match(env_name) and value.startswith("/"):
            if not any(value.startswith(path.rstrip("/") + "/") for path in mounts.values()):
                c.fail(where, f"env {env_name}={value} lies under no volume mount")
    if binary:
        check_env_parses(c, where, binary, container.get("env", []), flags)
    for probe_name in ("startupProbe", "livenessProbe", "readinessProbe"):
        probe = container.get(probe_name)
        if probe is None:
            continue
        handlers = [h for h in PROBE_HANDLERS if h in probe]
        if len(handlers) != 1:
            c.fail(where, f"{probe_name} has handlers {handlers}, needs exactly one")
            continue
        port = probe[handlers[0]].get("port")
        if isinstance(port, str) and port not in port_names:
            c.fail(where, f"{probe_name} names port {port!r} the container does not have")
        if isinstance(port, int) and port not in port_numbers:
            c.fail(where, f"{probe_name} probes port {port}, which the container does not open")
        if handlers[0] == "grpc" and not isinstance(port, int):
            c.fail(where, f"{probe_name}: a grpc probe needs a port number")
    return port_names, {e["name"]: e for e in container.get("env", []) if "name" in e}


def check_env_parses(c, where, binary, env_entries, flags):
    """Runs the binary with --version and the container's environment: it reads every ASSISTED_*
    variable before acting on --version, and exits 2 naming the first it cannot parse. Values
    from Secrets and the pod become placeholders of the right shape."""
    env = {"PATH": "/usr/bin:/bin"}
    for entry in env_entries:
        if "value" in entry:
            env[entry["name"]] = entry["value"]
        elif get(entry, "valueFrom", "fieldRef"):
            env[entry["name"]] = "assisted-orchestrator-5d9c7b8f4-x2x7q"
        else:
            env[entry["name"]] = "host=placeholder dbname=assisted"
    result = subprocess.run([flags["path:" + binary], "--version"], env=env, capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        c.fail(where, f"{binary} refuses its environment: {(result.stderr or result.stdout).strip()}")


def read_images(build_sh):
    """{image name: binaries it holds} and the non-root uid, from deploy/images/build.sh."""
    text = open(build_sh).read()
    images = {m.group(1): {p.rsplit("/", 1)[-1] for p in m.group(2).split()}
              for m in re.finditer(r'^\s*\[([a-z]+)\]="([^"]*)"', text, flags=re.M)}
    uid = int(re.search(r"^NONROOT=(\d+)", text, flags=re.M).group(1))
    return images, uid


def check_image(c, where, container, spec, images):
    """The container runs an image deploy/images builds, a binary in it, as its user."""
    built, uid = images
    match = re.search(r"/assisted-([a-z]+):[^/]+$", container.get("image", ""))
    if not match or match.group(1) not in built:
        return  # a repository of the operator's own (<component>.image.repository)
    command = (container.get("command") or [""])[0]
    if command.rsplit("/", 1)[-1] not in built[match.group(1)]:
        c.fail(where, f"runs {command!r}, which the assisted-{match.group(1)} image does not hold")
    if get(spec, "securityContext", "runAsUser") not in (None, uid):
        c.fail(where, f"runs as uid {get(spec, 'securityContext', 'runAsUser')}, the images' user is {uid}")


def check_pod_spec(c, where, spec, flags):
    volumes = set()
    for volume in spec.get("volumes", []):
        if volume.get("name") in volumes:
            c.fail(where, f"volume {volume.get('name')!r} repeated")
        volumes.add(volume.get("name"))
    containers = spec.get("containers") or []
    if not containers:
        c.fail(where, "no containers")
    port_names, env = set(), {}
    for container in containers:
        names, container_env = check_container(c, f"{where} container {container.get('name')}", container, volumes, flags)
        check_image(c, f"{where} container {container.get('name')}", container, spec, flags["images"])
        port_names |= names
        env.update(container_env)
    if get(spec, "securityContext", "runAsNonRoot") is not True:
        c.fail(where, "the pod does not require a non-root user")
    return port_names, env


def check_scenario(c, values, docs, flags):
    by_kind = {}
    seen = set()
    for where, obj in docs:
        if not isinstance(obj, dict):
            c.fail(where, "document is not a mapping")
            continue
        kind, api = obj.get("kind"), obj.get("apiVersion")
        if KNOWN_KINDS.get(kind) != api:
            c.fail(where, f"unknown apiVersion/kind {api}/{kind}")
            continue
        check_metadata(c, where, obj)
        key = (kind, get(obj, "metadata", "name"))
        if key in seen:
            c.fail(where, f"{kind} {key[1]} rendered twice")
        seen.add(key)
        by_kind.setdefault(kind, []).append((where, obj))

    pods = []  # (labels, port names, env, volumes, where, kind)
    for where, obj in by_kind.get("Deployment", []):
        selector = get(obj, "spec", "selector", "matchLabels") or {}
        labels = get(obj, "spec", "template", "metadata", "labels") or {}
        if not selects(selector, labels):
            c.fail(where, "spec.selector.matchLabels does not select the pod template's labels")
        if not isinstance(get(obj, "spec", "replicas"), int):
            c.fail(where, "spec.replicas is not an integer")
        spec = get(obj, "spec", "template", "spec") or {}
        ports, env = check_pod_spec(c, where, spec, flags)
        pods.append((labels, ports, env, spec.get("volumes", []), where))
    for where, obj in by_kind.get("Pod", []):
        check_pod_spec(c, where, obj.get("spec") or {}, flags)

    services = {}
    for where, obj in by_kind.get("Service", []):
        name = obj["metadata"]["name"]
        selector = get(obj, "spec", "selector") or {}
        matched = [p for p in pods if selects(selector, p[0])]
        if not matched:
            c.fail(where, "selects no pod the chart makes")
        ports = {}
        for port in get(obj, "spec", "ports", default=[]):
            if not isinstance(port.get("port"), int):
                c.fail(where, f"port {port.get('name')} is not an integer")
            target = port.get("targetPort", port.get("port"))
            if isinstance(target, str) and not any(target in p[1] for p in matched):
                c.fail(where, f"targetPort {target!r} is a port of none of its pods")
            if "nodePort" in port and get(obj, "spec", "type") != "NodePort":
                c.fail(where, "nodePort on a Service that is not a NodePort")
            ports[port.get("name")] = port.get("port")
        services[name] = (ports, selector, obj)

    for where, obj in by_kind.get("NetworkPolicy", []):
        selector = get(obj, "spec", "podSelector", "matchLabels") or {}
        matched = [p for p in pods if selects(selector, p[0])]
        if not matched:
            c.fail(where, "podSelector selects no pod")
        for rule in get(obj, "spec", "ingress", default=[]):
            for port in rule.get("ports", []):
                if isinstance(port.get("port"), str) and not all(port["port"] in p[1] for p in matched):
                    c.fail(where, f"port {port['port']!r} is not a port of every selected pod")
            for peer in rule.get("from", []):
                if "podSelector" in peer and "namespaceSelector" not in peer:
                    if not any(expression_selects(peer["podSelector"], p[0]) for p in pods):
                        c.fail(where, f"from {peer} selects no pod of the release")

    for where, obj in by_kind.get("PodDisruptionBudget", []):
        if not any(selects(get(obj, "spec", "selector", "matchLabels"), p[0]) for p in pods):
            c.fail(where, "selects no pod")
        if ("minAvailable" in obj["spec"]) == ("maxUnavailable" in obj["spec"]):
            c.fail(where, "needs exactly one of minAvailable and maxUnavailable")

    for where, obj in by_kind.get("ServiceMonitor", []):
        selector = get(obj, "spec", "selector", "matchLabels")
        matched = [s for s in services.values() if selects(selector, get(s[2], "metadata", "labels") or {})]
        if not matched:
            c.fail(where, "selects no Service")
        for endpoint in get(obj, "spec", "endpoints", default=[]):
            if not all(endpoint.get("port") in s[0] for s in matched):
                c.fail(where, f"endpoint port {endpoint.get('port')!r} is not on every selected Service")

    for where, obj in by_kind.get("Ingress", []):
        for rule in get(obj, "spec", "rules", default=[]):
            for path in get(rule, "http", "paths", default=[]):
                backend = get(path, "backend", "service") or {}
                service = services.get(backend.get("name"))
                if service is None:
                    c.fail(where, f"backend Service {backend.get('name')!r} is not rendered")
                elif get(backend, "port", "name") not in service[0]:
                    c.fail(where, f"backend port {get(backend, 'port')} is not a port of {backend.get('name')}")

    # Addresses between the services name a Service and one of its ports; the internal
    # certificate (when cert-manager makes it) covers each.
    dialled = set()
    for labels, ports, env, volumes, where in pods:
        for name in ADDRESS_ENV + ("ASSISTED_ORCHESTRATOR_ADDRESS",):
            value = get(env, name, "value")
            if not value or (name == "ASSISTED_ORCHESTRATOR_ADDRESS" and labels.get("app.kubernetes.io/component") == "image"):
                continue  # the image service's is the address hosts use, outside the cluster
            balanced = value.startswith("dns:///")
            host, _, port = value.removeprefix("dns:///").rpartition(":")
            if host not in services or int(port) not in services[host][0].values():
                c.fail(where, f"{name}={value} is no Service port the chart makes")
            elif balanced and get(services[host][2], "spec", "clusterIP") != "None":
                # gRPC balances over the addresses DNS gives: a ClusterIP Service gives one.
                c.fail(where, f"{name}={value} dials dns:/// a Service that is not headless")
            elif not balanced and get(values, "grpcClientBalancing"):
                c.fail(where, f"{name}={value} is not balanced although grpcClientBalancing is on")
            dialled.add(host)
        for volume in volumes:
            claim = get(volume, "persistentVolumeClaim", "claimName")
            if claim and not any(get(o, "metadata", "name") == claim for _, o in by_kind.get("PersistentVolumeClaim", [])):
                c.fail(where, f"claim {claim} is not rendered (nor expected to exist: no existingClaim)")
    for where, obj in by_kind.get("Certificate", []):
        if get(obj, "spec", "isCA"):
            continue
        missing = dialled - set(get(obj, "spec", "dnsNames", default=[]))
        if missing:
            c.fail(where, f"dnsNames miss the addresses services dial: {sorted(missing)}")
        issuer = get(obj, "spec", "issuerRef", "name")
        if get(obj, "spec", "issuerRef", "kind") == "Issuer" and not any(
            get(o, "metadata", "name") == issuer for _, o in by_kind.get("Issuer", [])
        ):
            c.fail(where, f"issuer {issuer} is not rendered")

    check_helm_test(c, values, by_kind, services, pods)


INTERNAL_FLAGS = ("--internal-ca", "--internal-client-cert", "--internal-client-key")


def check_helm_test(c, values, by_kind, services, pods):
    """The helm test Pod's aictl health covers every gRPC port as the release's callers reach it."""
    tests = [(w, o) for w, o in by_kind.get("Pod", []) if get(o, "metadata", "annotations", "helm.sh/hook") == "test"]
    if len(tests) != 1:
        c.fail("helm test", f"{len(tests)} test Pods, want 1")
        return
    where, pod = tests[0]
    labels = get(pod, "metadata", "labels") or {}
    mtls = bool(get(values, "internalTls", "enabled"))
    public_tls = get(values, "tls", "components", default=[]) if get(values, "tls", "enabled") else []
    probed = {}  # (service, port name) -> whether over the internal mutual TLS
    for container in get(pod, "spec", "containers", default=[]):
        at = f"{where} container {container.get('name')}"
        command = container.get("command") or []
        if command[:2] != ["aictl", "health"]:
            c.fail(at, f"runs {command[:2]}, not aictl health")
            continue
        options = dict(a[2:].split("=", 1) for a in command[2:] if a.startswith("--") and "=" in a)
        given = [f for f in INTERNAL_FLAGS if f[2:] in options]
        if given and len(given) != len(INTERNAL_FLAGS):
            c.fail(at, f"gives {given} without the rest of {list(INTERNAL_FLAGS)}")
        mounts = [m.get("mountPath", "").rstrip("/") + "/" for m in container.get("volumeMounts", [])]
        for flag in given:
            if not any(options[flag[2:]].startswith(m) for m in mounts):
                c.fail(at, f"{flag}={options[flag[2:]]} lies under no volume mount")
        for target in (a for a in command[2:] if not a.startswith("--")):
            host, _, port = target.rpartition(":")
            names = [n for n, number in services.get(host, ({}, None, None))[0].items() if str(number) == port]
            if not names:
                c.fail(at, f"probes {target}, no Service port the chart makes")
                continue
            probed[(host, names[0])] = bool(given)
    for name, (ports, selector, obj) in services.items():
        component = get(obj, "metadata", "labels", "app.kubernetes.io/component")
        for port_name in ports:
            if port_name not in ("grpc", "internal-grpc"):
                continue
            internal = port_name == "internal-grpc" or component in ("inventory", "image")
            if not internal and component in public_tls:
                if (name, port_name) in probed:
                    c.fail(where, f"probes {name}:{port_name}, which speaks the public TLS aictl health cannot")
                continue
            if (name, port_name) not in probed:
                c.fail(where, f"does not probe {name}:{port_name}")
                continue
            if probed[(name, port_name)] != (internal and mtls):
                how = "over the internal mutual TLS" if internal and mtls else "in plaintext"
                c.fail(where, f"must probe {name}:{port_name} {how}")
            targets = [p for p in pods if selects(selector, p[0])]
            for policy_where, policy in by_kind.get("NetworkPolicy", []):
                if not any(selects(get(policy, "spec", "podSelector", "matchLabels"), p[0]) for p in targets):
                    continue
                admits = any(
                    any(get(port, "port") == port_name for port in rule.get("ports", []))
                    and (not rule.get("from") or any(
                        "podSelector" in peer and "namespaceSelector" not in peer
                        and expression_selects(peer["podSelector"], labels) for peer in rule["from"]))
                    for rule in get(policy, "spec", "ingress", default=[])
                )
                if not admits:
                    c.fail(policy_where, f"keeps the helm test Pod from {name}:{port_name}")


def main():
    schema_path, values_path, flags_dir, rendered_dir, images_build_sh = sys.argv[1:6]
    schema = json.load(open(schema_path))
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    base_values = yaml.safe_load(open(values_path))
    flags = {"images": read_images(images_build_sh)}
    for name in os.listdir(flags_dir):
        content = open(os.path.join(flags_dir, name)).read()
        if name.endswith(".env"):
            flags[name[: -len(".env")]] = set(content.split())
        elif name.endswith(".path"):
            flags["path:" + name[: -len(".path")]] = content.strip()
    problems = [f"values.yaml: {'.'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(base_values)]
    scenarios = sorted(n[: -len(".values.yaml")] for n in os.listdir(rendered_dir) if n.endswith(".values.yaml"))
    if not scenarios:
        problems.append("no scenarios rendered")
    for scenario in scenarios:
        c = Checker(scenario)
        values = copy.deepcopy(base_values)
        for layer in yaml.safe_load_all(open(os.path.join(rendered_dir, scenario + ".values.yaml"))):
            deep_merge(values, layer or {})
        for error in validator.iter_errors(values):
            c.fail("values", f"{'.'.join(map(str, error.path))}: {error.message}")
        text = open(os.path.join(rendered_dir, scenario + ".yaml")).read()
        docs = []
        source = "?"
        for index, chunk in enumerate(re.split(r"^---\s*$", text, flags=re.M)):
            match = re.search(r"^# Source: (\S+)", chunk, flags=re.M)
            source = match.group(1) if match else source
            try:
                obj = yaml.safe_load(chunk)
            except yaml.YAMLError as error:
                c.fail(source, f"does not parse as YAML: {error}")
                continue
            if obj is not None:
                docs.append((f"{source}#{index}", obj))
        if not docs:
            c.fail("output", "nothing rendered")
        check_scenario(c, values, docs, flags)
        kinds = sorted({o.get("kind") for _, o in docs if isinstance(o, dict)})
        print(f"{scenario}: {len(docs)} objects ({', '.join(kinds)}), {len(c.problems)} problems")
        problems += c.problems
    for problem in problems:
        print("PROBLEM:", problem)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
