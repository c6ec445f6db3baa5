module github.com/opforge/opforge

go 1.24.0

require (
	github.com/beevik/etree v1.8.1
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/magefile/mage v1.17.2
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/text v0.17.0 // indirect
	google.golang.org/protobuf v1.36.12
)

tool github.com/magefile/mage
