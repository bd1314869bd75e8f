// render — renders a Helm chart the way `helm template` does, for CI on a machine without
// helm (Debian has no helm package and its downloads come from outside the Debian and npm
// registries). It is NOT helm: it is Go's text/template with sprig v3 (Debian's
// golang-github-masterminds-sprig-dev, the library helm uses) plus the functions helm adds
// (include, tpl, required, fail, toYaml, fromYaml, toJson, fromJson, fromYamlArray,
// fromJsonArray, lookup returning nothing), values read like helm reads them (YAML through JSON,
// so numbers are float64, as in helm), values files merged over values.yaml like -f, and
// .Release/.Chart/.Capabilities/.Template as helm fills them for `helm template`. Missing map
// keys are errors (helm lint --strict). Not covered: subcharts, .Files, --set parsing,
// hooks ordering, the Kubernetes-kind sort of the output.
//
// Usage: render CHART_DIR RELEASE NAMESPACE [VALUES_FILE...]
// Prints every rendered template but partials and NOTES.txt (rendered, for its errors) as "---\n# Source: <path>\n<text>"
// on stdout; a template error goes to stderr with exit status 1.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/ioutil"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"github.com/ghodss/yaml"
)

func die(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "render: "+format+"\n", args...)
	os.Exit(1)
}

func readYAML(path string) map[string]interface{} {
	data, err := ioutil.ReadFile(path)
	if err != nil {
		die("%v", err)
	}
	out := map[string]interface{}{}
	if err := yaml.Unmarshal(data, &out); err != nil {
		die("%s: %v", path, err)
	}
	return out
}

// mergeValues merges src over dst like helm's coalescing of -f files: maps merge key by key,
// anything else replaces; a null in src deletes the key.
func mergeValues(dst, src map[string]interface{}) map[string]interface{} {
	for key, value := range src {
		if value == nil {
			delete(dst, key)
			continue
		}
		srcMap, srcIsMap := value.(map[string]interface{})
		dstMap, dstIsMap := dst[key].(map[string]interface{})
		if srcIsMap && dstIsMap {
			dst[key] = mergeValues(dstMap, srcMap)
		} else {
			dst[key] = value
		}
	}
	return dst
}

func toYAML(v interface{}) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

// decoders makes helm's fromYaml/fromJson (a map; a parse error goes into its "Error" key)
// and fromYamlArray/fromJsonArray (a list; a parse error is its only element) for one decoder.
func decoders(unmarshal func([]byte, interface{}) error) (func(string) map[string]interface{}, func(string) []interface{}) {
	toMap := func(s string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := unmarshal([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	toList := func(s string) []interface{} {
		a := []interface{}{}
		if err := unmarshal([]byte(s), &a); err != nil {
			a = []interface{}{err.Error()}
		}
		return a
	}
	return toMap, toList
}

func toJSON(v interface{}) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(data)
}

// required fails like helm's: on nil and on the empty string, nothing else.
func required(message string, value interface{}) (interface{}, error) {
	if value == nil {
		return value, fmt.Errorf("%s", message)
	}
	if s, ok := value.(string); ok && s == "" {
		return value, fmt.Errorf("%s", message)
	}
	return value, nil
}

func main() {
	if len(os.Args) < 4 {
		die("usage: render CHART_DIR RELEASE NAMESPACE [VALUES_FILE...]")
	}
	chartDir, release, namespace := os.Args[1], os.Args[2], os.Args[3]
	chartMeta := readYAML(filepath.Join(chartDir, "Chart.yaml"))
	values := readYAML(filepath.Join(chartDir, "values.yaml"))
	for _, file := range os.Args[4:] {
		values = mergeValues(values, readYAML(file))
	}
	// .Chart fields are capitalised in templates (helm's chart.Metadata).
	chart := map[string]interface{}{}
	for key, value := range chartMeta {
		chart[strings.ToUpper(key[:1])+key[1:]] = value
	}
	chartName, _ := chart["Name"].(string)

	var paths []string
	templatesDir := filepath.Join(chartDir, "templates")
	err := filepath.Walk(templatesDir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			paths = append(paths, path)
		}
		return err
	})
	if err != nil {
		die("%v", err)
	}
	sort.Strings(paths)

	root := template.New("chart").Option("missingkey=error")
	funcs := sprig.TxtFuncMap()
	delete(funcs, "env")
	delete(funcs, "expandenv")
	includeDepth := 0
	funcs["include"] = func(name string, data interface{}) (string, error) {
		includeDepth++
		defer func() { includeDepth-- }()
		if includeDepth > 1000 {
			return "", fmt.Errorf("include %q: recursion too deep", name)
		}
		var buf bytes.Buffer
		err := root.ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
	funcs["tpl"] = func(text string, data interface{}) (string, error) {
		t, err := root.Clone()
		if err != nil {
			return "", err
		}
		t, err = t.New("tpl").Parse(text)
		if err != nil {
			return "", err
		}
		var buf bytes.Buffer
		err = t.Execute(&buf, data)
		return buf.String(), err
	}
	funcs["required"] = required
	funcs["fail"] = func(message string) (string, error) { return "", fmt.Errorf("%s", message) }
	funcs["toYaml"] = toYAML
	funcs["fromYaml"], funcs["fromYamlArray"] = decoders(func(data []byte, v interface{}) error { return yaml.Unmarshal(data, v) })
	funcs["toJson"] = toJSON
	funcs["fromJson"], funcs["fromJsonArray"] = decoders(json.Unmarshal)
	funcs["lookup"] = func(string, string, string, string) (map[string]interface{}, error) {
		return map[string]interface{}{}, nil
	}
	root.Funcs(funcs)

	names := map[string]string{}
	for _, path := range paths {
		data, err := ioutil.ReadFile(path)
		if err != nil {
			die("%v", err)
		}
		rel, _ := filepath.Rel(chartDir, path)
		name := chartName + "/" + filepath.ToSlash(rel)
		names[path] = name
		if _, err := root.New(name).Parse(string(data)); err != nil {
			die("%v", err)
		}
	}

	for _, path := range paths {
		base := filepath.Base(path)
		if strings.HasPrefix(base, "_") {
			continue
		}
		name := names[path]
		context := map[string]interface{}{
			"Values": values,
			"Chart":  chart,
			"Release": map[string]interface{}{
				"Name": release, "Namespace": namespace, "Service": "Helm",
				"IsInstall": true, "IsUpgrade": false, "Revision": 1,
			},
			"Capabilities": map[string]interface{}{
				"KubeVersion": map[string]interface{}{"Version": "v1.30.0", "Major": "1", "Minor": "30"},
			},
			"Template": map[string]interface{}{"Name": name, "BasePath": chartName + "/templates"},
		}
		var buf bytes.Buffer
		if err := root.ExecuteTemplate(&buf, name, context); err != nil {
			die("%v", err)
		}
		text := strings.ReplaceAll(buf.String(), "<no value>", "")
		if base == "NOTES.txt" {
			continue // rendered for its errors only: helm prints it after an install, not as a manifest
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		fmt.Printf("---\n# Source: %s\n%s\n", name, text)
	}
}
