{{/*
Names and labels, after the app.kubernetes.io conventions.
Most helpers below take a dict:
  root       the chart's root context ($)
  component  inventory | orchestrator | image | gateway
  values     that component's values (.Values.inventory, ... .Values.imageService, ...)
  env        (deployment only) component-specific container env entries, a list of maps
*/}}

{{- define "assisted.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Fully qualified app name; the release name alone when it already contains the chart name.
*/}}
{{- define "assisted.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "assisted.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Name of one component's Deployment and Service: <fullname>-<component>. */}}
{{- define "assisted.componentFullname" -}}
{{- printf "%s-%s" (include "assisted.fullname" .root | trunc 50 | trimSuffix "-") .component }}
{{- end }}

{{/* Labels shared by every object of the release. */}}
{{- define "assisted.labels" -}}
helm.sh/chart: {{ include "assisted.chart" . }}
app.kubernetes.io/name: {{ include "assisted.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: assisted
{{- end }}

{{/* Selector labels of one component (immutable on a Deployment: keep them minimal). */}}
{{- define "assisted.componentSelectorLabels" -}}
app.kubernetes.io/name: {{ include "assisted.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* All labels of one component's objects. */}}
{{- define "assisted.componentLabels" -}}
{{ include "assisted.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* In-cluster host:port of a component's gRPC Service port. Args: root, component, port. */}}
{{- define "assisted.grpcAddress" -}}
{{- printf "%s:%v" (include "assisted.componentFullname" .) .port }}
{{- end }}

{{/* The gRPC target by which the services call a peer component. With grpcClientBalancing:
dns:/// over the peer's headless Service (assisted.peerService), one address per ready pod, and
gRPC's round_robin spreads the calls; otherwise the ClusterIP Service's host:port (kube-proxy
picks one pod per connection, and a gRPC channel keeps one connection). Args: root, component,
port. */}}
{{- define "assisted.peerAddress" -}}
{{- if .root.Values.grpcClientBalancing }}
{{- printf "dns:///%s-peers:%v" (include "assisted.componentFullname" .) .port }}
{{- else }}
{{- include "assisted.grpcAddress" . }}
{{- end }}
{{- end }}

{{/* The headless Service of assisted.peerAddress (grpcClientBalancing only): the gRPC port of
the pods of `selects`, named like the component's Service plus -peers. Args: root, component,
selects (the pods' component), portName, port. */}}
{{- define "assisted.peerService" -}}
{{- if .root.Values.grpcClientBalancing }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ include "assisted.componentFullname" . }}-peers
  labels:
    {{- include "assisted.componentLabels" (dict "root" .root "component" .selects) | nindent 4 }}
spec:
  clusterIP: None
  selector:
    {{- include "assisted.componentSelectorLabels" (dict "root" .root "component" .selects) | nindent 4 }}
  ports:
    - name: {{ .portName }}
      port: {{ .port }}
      targetPort: {{ .portName }}
      protocol: TCP
      {{- if not .root.Values.internalTls.enabled }}
      appProtocol: kubernetes.io/h2c
      {{- end }}
{{- end }}
{{- end }}

{{/* Container image of a component: <image.registry>/assisted-<component>:<tag>, as
./dev images names them, unless the component names a repository of its own. */}}
{{- define "assisted.image" -}}
{{- $image := .values.image | default dict }}
{{- $repository := $image.repository | default (printf "%s/assisted-%s" (.root.Values.image.registry | trimSuffix "/") .component) }}
{{- $tag := $image.tag | default .root.Values.image.tag | default .root.Chart.AppVersion }}
{{- printf "%s:%v" $repository $tag }}
{{- end }}

{{/* PostgreSQL DSN Secret: the existing one, or the one this chart creates. */}}
{{- define "assisted.postgresSecretName" -}}
{{- if .Values.postgres.existingSecret }}
{{- .Values.postgres.existingSecret }}
{{- else }}
{{- printf "%s-postgres" (include "assisted.fullname" .) }}
{{- end }}
{{- end }}

{{- define "assisted.postgresSecretKey" -}}
{{- if .Values.postgres.existingSecret }}
{{- .Values.postgres.existingSecretKey | default "dsn" }}
{{- else -}}
dsn
{{- end }}
{{- end }}

{{/*
"true" when the services call each other over mutual TLS (internalTls), else empty; fails
when neither that nor insecureInternalListeners (development only) is chosen. Args: root ($).
*/}}
{{- define "assisted.internalTlsEnabled" -}}
{{- $internal := .Values.internalTls }}
{{- if $internal.enabled }}
{{- if not $internal.existingSecret }}
{{- if not .Values.internalTls.certManager.enabled }}
{{- fail "internalTls.enabled needs internalTls.existingSecret (ca.crt, tls.crt, tls.key) or internalTls.certManager.enabled" }}
{{- end }}
{{- end -}}
true
{{- else if not .Values.insecureInternalListeners }}
{{- fail "the internal listeners need internalTls.enabled (mutual TLS between the services, see docs/security.md) or insecureInternalListeners=true (development only)" }}
{{- end }}
{{- end }}

{{/* The Secret holding the internal CA, certificate and key: the given one, or cert-manager's. */}}
{{- define "assisted.internalTlsSecretName" -}}
{{- .Values.internalTls.existingSecret | default (printf "%s-internal-tls" (include "assisted.fullname" .)) }}
{{- end }}

{{/* "true" for the components whose main gRPC port is internal (inventory, image). */}}
{{- define "assisted.internalComponent" -}}
{{- if has .component (list "inventory" "image") -}}
true
{{- end }}
{{- end }}

{{/*
"true" when the component's main gRPC port speaks TLS, else empty: internalTls for the
internal components, tls (public listeners) for the others. Args: root, component.
*/}}
{{- define "assisted.tlsEnabled" -}}
{{- $tls := .root.Values.tls }}
{{- if include "assisted.internalComponent" . }}
{{- include "assisted.internalTlsEnabled" .root }}
{{- else if and $tls.enabled (has .component $tls.components) }}
{{- if not $tls.existingSecret }}
{{- fail "tls.enabled needs tls.existingSecret (a kubernetes.io/tls Secret)" }}
{{- end -}}
true
{{- end }}
{{- end }}

{{/*
Env of the internal mutual TLS and listeners (docs/security.md). Args: root, component, values.
  - the orchestrator's management listener (--internal-grpc-listen) and its --internal-tls-*;
  - the inventory's and image service's --tls-* (their gRPC port is internal);
  - every caller's --internal-ca/--internal-client-cert/--internal-client-key;
  - --insecure-internal-listener when chosen (development only).
*/}}
{{- define "assisted.internalEnv" -}}
{{- $root := .root }}
{{- $internal := $root.Values.internalTls }}
{{- $mtls := include "assisted.internalTlsEnabled" $root }}
{{- $file := dict "ca" (printf "%s/%s" $internal.mountPath $internal.caKey) "cert" (printf "%s/%s" $internal.mountPath $internal.certKey) "key" (printf "%s/%s" $internal.mountPath $internal.keyKey) }}
{{- $serverPrefix := "" }}
{{- if eq .component "orchestrator" }}
{{- $serverPrefix = "ASSISTED_INTERNAL_" }}
- name: ASSISTED_INTERNAL_GRPC_LISTEN
  value: {{ printf "0.0.0.0:%v" .values.ports.internalGrpc | quote }}
{{- else if include "assisted.internalComponent" . }}
{{- $serverPrefix = "ASSISTED_" }}
{{- end }}
{{- if and $mtls $serverPrefix }}
- name: {{ $serverPrefix }}TLS_CERT
  value: {{ $file.cert | quote }}
- name: {{ $serverPrefix }}TLS_KEY
  value: {{ $file.key | quote }}
- name: {{ $serverPrefix }}TLS_CLIENT_CA
  value: {{ $file.ca | quote }}
{{- end }}
{{- if and $mtls (ne .component "inventory") }}
- name: ASSISTED_INTERNAL_CA
  value: {{ $file.ca | quote }}
- name: ASSISTED_INTERNAL_CLIENT_CERT
  value: {{ $file.cert | quote }}
- name: ASSISTED_INTERNAL_CLIENT_KEY
  value: {{ $file.key | quote }}
{{- end }}
{{- if and (not $mtls) $serverPrefix }}
- name: ASSISTED_INSECURE_INTERNAL_LISTENER
  value: "true"
{{- end }}
{{- end }}

{{/*
Files a component reads from Secrets (keys, JWKS), each mounted read-only at
/etc/assisted/<name> and named by an env variable: a list of dicts
  name  volume and directory name      secret  Secret name
  key   key in that Secret              env     ASSISTED_* variable holding the file's path
"assisted.secretFileEnv", "…Mounts" and "…Volumes" render the three parts. Args: files.
*/}}
{{- define "assisted.secretFileEnv" -}}
{{- range . }}
- name: {{ .env }}
  value: {{ printf "/etc/assisted/%s/%s" .name .key | quote }}
{{- end }}
{{- end }}

{{- define "assisted.secretFileMounts" -}}
{{- range . }}
- name: {{ .name }}
  mountPath: {{ printf "/etc/assisted/%s" .name }}
  readOnly: true
{{- end }}
{{- end }}

{{- define "assisted.secretFileVolumes" -}}
{{- range . }}
- name: {{ .name }}
  secret:
    secretName: {{ .secret }}
    defaultMode: 0440
    items:
      - key: {{ .key }}
        path: {{ .key }}
{{- end }}
{{- end }}

{{/* The shared URL-signing key (orchestrator, image, gateway) as a secret file. Args: root ($). */}}
{{- define "assisted.urlSigningFile" -}}
{{- $u := .Values.urlSigning }}
{{- $secret := required "urlSigning.existingSecret is required: a Secret with the URL-signing key every orchestrator, image and gateway replica shares (README \"Secrets\")" $u.existingSecret }}
{{- toJson (dict "name" "url-signing" "secret" $secret "key" $u.key "env" "ASSISTED_URL_SIGNING_KEY_FILE") }}
{{- end }}

{{/* terminationGracePeriodSeconds: preStop sleep + --shutdown-grace + margin. */}}
{{- define "assisted.terminationGracePeriodSeconds" -}}
{{- $base := add (int .Values.preStopSleepSeconds) (int .Values.shutdownGraceSeconds) }}
{{- max (add1 $base) (add $base (int .Values.terminationGraceMarginSeconds)) }}
{{- end }}

{{/*
Container env common to all four services (listen addresses, logging, shutdown, gRPC tuning,
TLS), as a list of env entries. Args: root, component, values.
*/}}
{{- define "assisted.commonEnv" -}}
{{- $root := .root }}
{{- $v := .values }}
{{- $ports := $v.ports -}}
- name: ASSISTED_GRPC_LISTEN
  value: {{ printf "0.0.0.0:%v" $ports.grpc | quote }}
{{- if get $ports "http" }}
- name: ASSISTED_HTTP_LISTEN
  value: {{ printf "0.0.0.0:%v" $ports.http | quote }}
{{- end }}
- name: ASSISTED_METRICS_LISTEN
  value: {{ printf "0.0.0.0:%v" $ports.metrics | quote }}
- name: ASSISTED_LOG_LEVEL
  value: {{ $v.logLevel | default $root.Values.logLevel | quote }}
- name: ASSISTED_LOG_FORMAT
  value: {{ $v.logFormat | default $root.Values.logFormat | quote }}
- name: ASSISTED_SHUTDOWN_GRACE
  value: {{ printf "%ds" (int $root.Values.shutdownGraceSeconds) | quote }}
{{- with $root.Values.grpc }}
{{- if .keepaliveTime }}
- name: ASSISTED_GRPC_KEEPALIVE_TIME
  value: {{ .keepaliveTime | quote }}
{{- end }}
{{- if .keepaliveTimeout }}
- name: ASSISTED_GRPC_KEEPALIVE_TIMEOUT
  value: {{ .keepaliveTimeout | quote }}
{{- end }}
{{- if .maxConcurrentStreams }}
- name: ASSISTED_GRPC_MAX_CONCURRENT_STREAMS
  value: {{ .maxConcurrentStreams | toString | quote }}
{{- end }}
{{- end }}
{{- include "assisted.internalEnv" . }}
{{- if and (include "assisted.tlsEnabled" .) (not (include "assisted.internalComponent" .)) }}
{{- $tls := $root.Values.tls }}
- name: ASSISTED_TLS_CERT
  value: {{ printf "%s/%s" $tls.mountPath $tls.certKey | quote }}
- name: ASSISTED_TLS_KEY
  value: {{ printf "%s/%s" $tls.mountPath $tls.keyKey | quote }}
{{- if $tls.clientCAKey }}
- name: ASSISTED_TLS_CLIENT_CA
  value: {{ printf "%s/%s" $tls.mountPath $tls.clientCAKey | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Probe handlers. Args: root, component, values, and kind: startup | liveness | readiness.
- image and gateway: HTTP on their http port, /health for liveness and start-up, /ready for
  readiness (the image service is ready once its base images are usable, the gateway once its
  backends answer);
- inventory and orchestrator: the kubelet's native gRPC probe on the gRPC port, readiness
  asking for the service the port exists for (assisted.inventory.v1.InventoryService,
  assisted.agent.v1.AgentService); tcpSocket when the port speaks TLS, because the kubelet's
  gRPC probe is plaintext only.
*/}}
{{- define "assisted.probeHandler" -}}
{{- $served := dict "inventory" "assisted.inventory.v1.InventoryService" "orchestrator" "assisted.agent.v1.AgentService" }}
{{- if get .values.ports "http" -}}
httpGet:
  path: {{ ternary "/ready" "/health" (eq .kind "readiness") }}
  port: http
{{- else if include "assisted.tlsEnabled" . -}}
tcpSocket:
  port: grpc
{{- else -}}
grpc:
  port: {{ .values.ports.grpc }}
  {{- if eq .kind "readiness" }}
  service: {{ get $served .component }}
  {{- end }}
{{- end }}
{{- end }}

{{/*
The one Deployment all four services use. Args: root, component, values, env (extra env
entries), files (secret files, see assisted.secretFileEnv), volumes and mounts (extra ones).
*/}}
{{- define "assisted.deployment" -}}
{{- $root := .root }}
{{- $v := .values }}
{{- $tls := and (include "assisted.tlsEnabled" .) (not (include "assisted.internalComponent" .)) }}
{{- $internalTls := include "assisted.internalTlsEnabled" $root }}
{{- $podAnnotations := merge (dict) ($v.podAnnotations | default dict) ($root.Values.podAnnotations | default dict) }}
{{- if $root.Values.metrics.scrapeAnnotations }}
{{- $_ := set $podAnnotations "prometheus.io/scrape" "true" }}
{{- $_ := set $podAnnotations "prometheus.io/port" (toString $v.ports.metrics) }}
{{- $_ := set $podAnnotations "prometheus.io/path" "/metrics" }}
{{- end }}
{{- if and (eq .component "inventory") (not $root.Values.postgres.existingSecret) }}
{{- $_ := set $podAnnotations "checksum/postgres-dsn" ($root.Values.postgres.dsn | sha256sum) }}
{{- end }}
{{- $podLabels := merge (dict) ($v.podLabels | default dict) ($root.Values.podLabels | default dict) }}
{{- $nodeSelector := merge (dict) ($v.nodeSelector | default dict) ($root.Values.nodeSelector | default dict) }}
{{- $tolerations := $v.tolerations | default $root.Values.tolerations }}
{{- $affinity := $v.affinity | default $root.Values.affinity -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "assisted.componentFullname" . }}
  labels:
    {{- include "assisted.componentLabels" . | nindent 4 }}
spec:
  replicas: {{ $v.replicaCount }}
  revisionHistoryLimit: 5
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 0
      maxSurge: 25%
  selector:
    matchLabels:
      {{- include "assisted.componentSelectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "assisted.componentLabels" . | nindent 8 }}
        {{- with $podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with $podAnnotations }}
      annotations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    spec:
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $root.Values.serviceAccountName }}
      serviceAccountName: {{ . }}
      {{- end }}
      automountServiceAccountToken: {{ $root.Values.automountServiceAccountToken }}
      # Service links would put <SERVICE>_PORT style variables, some starting with ASSISTED_,
      # into the environment the binaries read their settings from.
      enableServiceLinks: false
      terminationGracePeriodSeconds: {{ include "assisted.terminationGracePeriodSeconds" $root }}
      {{- with $root.Values.podSecurityContext }}
      securityContext:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: {{ .component }}
          image: {{ include "assisted.image" . | quote }}
          imagePullPolicy: {{ ($v.image | default dict).pullPolicy | default $root.Values.image.pullPolicy }}
          command:
            {{- toYaml ($v.command | default (list (printf "assisted-%s" .component))) | nindent 12 }}
          env:
            {{- include "assisted.commonEnv" . | nindent 12 }}
            {{- with get . "files" }}
            {{- include "assisted.secretFileEnv" . | trim | nindent 12 }}
            {{- end }}
            {{- with .env }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
            {{- with $v.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          ports:
            - name: grpc
              containerPort: {{ $v.ports.grpc }}
              protocol: TCP
            {{- if get $v.ports "internalGrpc" }}
            - name: internal-grpc
              containerPort: {{ $v.ports.internalGrpc }}
              protocol: TCP
            {{- end }}
            {{- if get $v.ports "http" }}
            - name: http
              containerPort: {{ $v.ports.http }}
              protocol: TCP
            {{- end }}
            - name: metrics
              containerPort: {{ $v.ports.metrics }}
              protocol: TCP
          startupProbe:
            {{- include "assisted.probeHandler" (dict "root" $root "component" .component "values" $v "kind" "startup") | nindent 12 }}
            {{- toYaml $root.Values.probes.startup | nindent 12 }}
          livenessProbe:
            {{- include "assisted.probeHandler" (dict "root" $root "component" .component "values" $v "kind" "liveness") | nindent 12 }}
            {{- toYaml $root.Values.probes.liveness | nindent 12 }}
          readinessProbe:
            {{- include "assisted.probeHandler" (dict "root" $root "component" .component "values" $v "kind" "readiness") | nindent 12 }}
            {{- toYaml $root.Values.probes.readiness | nindent 12 }}
          {{- if gt (int $root.Values.preStopSleepSeconds) 0 }}
          lifecycle:
            preStop:
              sleep:
                seconds: {{ int $root.Values.preStopSleepSeconds }}
          {{- end }}
          {{- with $v.resources }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- with $root.Values.securityContext }}
          securityContext:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- if $tls }}
            - name: tls
              mountPath: {{ $root.Values.tls.mountPath }}
              readOnly: true
            {{- end }}
            {{- if $internalTls }}
            - name: internal-tls
              mountPath: {{ $root.Values.internalTls.mountPath }}
              readOnly: true
            {{- end }}
            {{- with get . "files" }}
            {{- include "assisted.secretFileMounts" . | trim | nindent 12 }}
            {{- end }}
            {{- with get . "mounts" }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
            {{- with $v.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
      volumes:
        - name: tmp
          emptyDir: {}
        {{- if $tls }}
        - name: tls
          secret:
            secretName: {{ $root.Values.tls.existingSecret }}
            defaultMode: 0440
        {{- end }}
        {{- if $internalTls }}
        - name: internal-tls
          secret:
            secretName: {{ include "assisted.internalTlsSecretName" $root }}
            defaultMode: 0440
        {{- end }}
        {{- with get . "files" }}
        {{- include "assisted.secretFileVolumes" . | trim | nindent 8 }}
        {{- end }}
        {{- with get . "volumes" }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
        {{- with $v.extraVolumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with $nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $root.Values.topologySpreadConstraints }}
      topologySpreadConstraints:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}

{{/*
The one Service all four services use. All container ports are exposed; the metrics port only
when the type is ClusterIP, so a LoadBalancer/NodePort never publishes /metrics.
Args: root, component, values.
*/}}
{{- define "assisted.service" -}}
{{- $v := .values }}
{{- $svc := $v.service | default dict }}
{{- $type := get $svc "type" | default "ClusterIP" }}
{{- $nodePorts := get $svc "nodePorts" | default dict }}
{{- $tls := include "assisted.tlsEnabled" . }}
{{- $ports := list (dict "name" "grpc" "port" $v.ports.grpc "appProtocol" (ternary "" "kubernetes.io/h2c" (not (empty $tls)))) }}
{{- if get $v.ports "http" }}
{{- $ports = append $ports (dict "name" "http" "port" $v.ports.http "appProtocol" "http") }}
{{- end }}
{{- if eq $type "ClusterIP" }}
{{- $ports = append $ports (dict "name" "metrics" "port" $v.ports.metrics "appProtocol" "http") }}
{{- end -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "assisted.componentFullname" . }}
  labels:
    {{- include "assisted.componentLabels" . | nindent 4 }}
  {{- with (get $svc "annotations") }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ $type }}
  {{- if and (eq $type "LoadBalancer") (get $svc "loadBalancerIP") }}
  loadBalancerIP: {{ (get $svc "loadBalancerIP") }}
  {{- end }}
  {{- if and (eq $type "LoadBalancer") (get $svc "loadBalancerSourceRanges") }}
  loadBalancerSourceRanges:
    {{- toYaml (get $svc "loadBalancerSourceRanges") | nindent 4 }}
  {{- end }}
  {{- if and (ne $type "ClusterIP") (get $svc "externalTrafficPolicy") }}
  externalTrafficPolicy: {{ (get $svc "externalTrafficPolicy") }}
  {{- end }}
  selector:
    {{- include "assisted.componentSelectorLabels" . | nindent 4 }}
  ports:
    {{- range $ports }}
    - name: {{ .name }}
      port: {{ .port }}
      targetPort: {{ .name }}
      protocol: TCP
      {{- with .appProtocol }}
      appProtocol: {{ . }}
      {{- end }}
      {{- if and (eq $type "NodePort") (get $nodePorts .name) }}
      nodePort: {{ get $nodePorts .name }}
      {{- end }}
    {{- end }}
{{- end }}
