// Validates every object in Kubernetes manifests (what `helm template` prints) against the
// OpenAPI schemas kubernetes-models carries: the core API's, and the CRDs' of the Prometheus
// operator (ServiceMonitor) and cert-manager (Certificate, Issuer).
//
// Usage: node validate.mjs MANIFEST.yaml...
// Prints "<file>: N objects valid" per file and one line per problem; exits 1 if there is any.
// An apiVersion/kind no package models is a problem too: the chart renders nothing unchecked.

import fs from "node:fs";
import yaml from "js-yaml";

// apiVersion -> the module folder of its models.
function modelFolder(apiVersion) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  if (group === "monitoring.coreos.com") return `@kubernetes-models/prometheus-operator/${apiVersion}`;
  if (group === "cert-manager.io") return `@kubernetes-models/cert-manager/${apiVersion}`;
  return group === "" ? `kubernetes-models/${version}` : `kubernetes-models/${apiVersion}`;
}

async function validateObject(object) {
  if (typeof object !== "object" || Array.isArray(object)) return "not a mapping";
  const { apiVersion, kind } = object;
  if (typeof apiVersion !== "string" || typeof kind !== "string" || !/^[A-Z][A-Za-z]*$/.test(kind)) {
    return `no apiVersion/kind (${apiVersion}/${kind})`;
  }
  let module;
  try {
    module = await import(`${modelFolder(apiVersion)}/${kind}`);
  } catch {
    return `${apiVersion}/${kind} is no kind the schemas know`;
  }
  try {
    new module[kind](object).validate();
  } catch (error) {
    return `${apiVersion}/${kind}: ${error.message}`;
  }
  return null;
}

let problems = 0;
for (const file of process.argv.slice(2)) {
  let count = 0;
  const documents = yaml.loadAll(fs.readFileSync(file, "utf8"));
  for (const object of documents) {
    if (object === null || object === undefined) continue;
    count++;
    const problem = await validateObject(object);
    if (problem) {
      problems++;
      console.log(`PROBLEM: ${file}: ${object?.metadata?.name ?? "?"}: ${problem}`);
    }
  }
  console.log(`${file}: ${count} objects checked against the Kubernetes schemas`);
}
process.exit(problems ? 1 : 0);
