// File: services/orchestrator/core/names.cc

#include "services/orchestrator/core/names.h"

namespace assisted::orchestrator::core {

namespace {

// proto3 enums are open: a value received from a newer peer has no name here.
absl::string_view Unknown() { return "unknown"; }

}  // namespace

absl::string_view HostStatusName(types::v1::HostStatus status) {
  switch (status) {
    case types::v1::HOST_STATUS_UNSPECIFIED:
      return "";
    case types::v1::HOST_STATUS_DISCOVERING:
      return "discovering";
    case types::v1::HOST_STATUS_KNOWN:
      return "known";
    case types::v1::HOST_STATUS_DISCONNECTED:
      return "disconnected";
    case types::v1::HOST_STATUS_INSUFFICIENT:
      return "insufficient";
    case types::v1::HOST_STATUS_DISABLED:
      return "disabled";
    case types::v1::HOST_STATUS_PREPARING_FOR_INSTALLATION:
      return "preparing-for-installation";
    case types::v1::HOST_STATUS_PREPARING_FAILED:
      return "preparing-failed";
    case types::v1::HOST_STATUS_PREPARING_SUCCESSFUL:
      return "preparing-successful";
    case types::v1::HOST_STATUS_PENDING_FOR_INPUT:
      return "pending-for-input";
    case types::v1::HOST_STATUS_INSTALLING:
      return "installing";
    case types::v1::HOST_STATUS_INSTALLING_IN_PROGRESS:
      return "installing-in-progress";
    case types::v1::HOST_STATUS_INSTALLING_PENDING_USER_ACTION:
      return "installing-pending-user-action";
    case types::v1::HOST_STATUS_RESETTING_PENDING_USER_ACTION:
      return "resetting-pending-user-action";
    case types::v1::HOST_STATUS_INSTALLED:
      return "installed";
    case types::v1::HOST_STATUS_ERROR:
      return "error";
    case types::v1::HOST_STATUS_RESETTING:
      return "resetting";
    case types::v1::HOST_STATUS_ADDED_TO_EXISTING_CLUSTER:
      return "added-to-existing-cluster";
    case types::v1::HOST_STATUS_CANCELLED:
      return "cancelled";
    case types::v1::HOST_STATUS_BINDING:
      return "binding";
    case types::v1::HOST_STATUS_UNBINDING:
      return "unbinding";
    case types::v1::HOST_STATUS_UNBINDING_PENDING_USER_ACTION:
      return "unbinding-pending-user-action";
    case types::v1::HOST_STATUS_KNOWN_UNBOUND:
      return "known-unbound";
    case types::v1::HOST_STATUS_DISCONNECTED_UNBOUND:
      return "disconnected-unbound";
    case types::v1::HOST_STATUS_INSUFFICIENT_UNBOUND:
      return "insufficient-unbound";
    case types::v1::HOST_STATUS_DISABLED_UNBOUND:
      return "disabled-unbound";
    case types::v1::HOST_STATUS_DISCOVERING_UNBOUND:
      return "discovering-unbound";
    case types::v1::HOST_STATUS_RECLAIMING:
      return "reclaiming";
    case types::v1::HOST_STATUS_RECLAIMING_REBOOTING:
      return "reclaiming-rebooting";
    default:
      return Unknown();
  }
}

absl::string_view ClusterStatusName(types::v1::ClusterStatus status) {
  switch (status) {
    case types::v1::CLUSTER_STATUS_UNSPECIFIED:
      return "";
    case types::v1::CLUSTER_STATUS_PENDING_FOR_INPUT:
      return "pending-for-input";
    case types::v1::CLUSTER_STATUS_INSUFFICIENT:
      return "insufficient";
    case types::v1::CLUSTER_STATUS_READY:
      return "ready";
    case types::v1::CLUSTER_STATUS_PREPARING_FOR_INSTALLATION:
      return "preparing-for-installation";
    case types::v1::CLUSTER_STATUS_INSTALLING:
      return "installing";
    case types::v1::CLUSTER_STATUS_INSTALLING_PENDING_USER_ACTION:
      return "installing-pending-user-action";
    case types::v1::CLUSTER_STATUS_FINALIZING:
      return "finalizing";
    case types::v1::CLUSTER_STATUS_INSTALLED:
      return "installed";
    case types::v1::CLUSTER_STATUS_ERROR:
      return "error";
    case types::v1::CLUSTER_STATUS_CANCELLED:
      return "cancelled";
    case types::v1::CLUSTER_STATUS_ADDING_HOSTS:
      return "adding-hosts";
    case types::v1::CLUSTER_STATUS_UNMONITORED:
      return "unmonitored";
    default:
      return Unknown();
  }
}

absl::string_view HostStageName(types::v1::HostStage stage) {
  switch (stage) {
    case types::v1::HOST_STAGE_UNSPECIFIED:
      return "";
    case types::v1::HOST_STAGE_STARTING_INSTALLATION:
      return "Starting installation";
    case types::v1::HOST_STAGE_WAITING_FOR_CONTROL_PLANE:
      return "Waiting for control plane";
    case types::v1::HOST_STAGE_WAITING_FOR_BOOTKUBE:
      return "Waiting for bootkube";
    case types::v1::HOST_STAGE_WAITING_FOR_CONTROLLER:
      return "Waiting for controller";
    case types::v1::HOST_STAGE_INSTALLING:
      return "Installing";
    case types::v1::HOST_STAGE_WRITING_IMAGE_TO_DISK:
      return "Writing image to disk";
    case types::v1::HOST_STAGE_COPYING_REGISTRY_DATA_TO_DISK:
      return "Copying registry data to disk";
    case types::v1::HOST_STAGE_REBOOTING:
      return "Rebooting";
    case types::v1::HOST_STAGE_WAITING_FOR_IGNITION:
      return "Waiting for ignition";
    case types::v1::HOST_STAGE_CONFIGURING:
      return "Configuring";
    case types::v1::HOST_STAGE_JOINED:
      return "Joined";
    case types::v1::HOST_STAGE_DONE:
      return "Done";
    case types::v1::HOST_STAGE_FAILED:
      return "Failed";
    default:
      return Unknown();
  }
}

absl::string_view HostRoleName(types::v1::HostRole role) {
  switch (role) {
    case types::v1::HOST_ROLE_UNSPECIFIED:
      return "";
    case types::v1::HOST_ROLE_AUTO_ASSIGN:
      return "auto-assign";
    case types::v1::HOST_ROLE_MASTER:
      return "master";
    case types::v1::HOST_ROLE_ARBITER:
      return "arbiter";
    case types::v1::HOST_ROLE_WORKER:
      return "worker";
    case types::v1::HOST_ROLE_BOOTSTRAP:
      return "bootstrap";
    default:
      return Unknown();
  }
}

absl::string_view StepTypeName(types::v1::StepType type) {
  switch (type) {
    case types::v1::STEP_TYPE_UNSPECIFIED:
      return "";
    case types::v1::STEP_TYPE_CONNECTIVITY_CHECK:
      return "connectivity-check";
    case types::v1::STEP_TYPE_EXECUTE:
      return "execute";
    case types::v1::STEP_TYPE_INVENTORY:
      return "inventory";
    case types::v1::STEP_TYPE_INSTALL:
      return "install";
    case types::v1::STEP_TYPE_FREE_NETWORK_ADDRESSES:
      return "free-network-addresses";
    case types::v1::STEP_TYPE_DHCP_LEASE_ALLOCATE:
      return "dhcp-lease-allocate";
    case types::v1::STEP_TYPE_API_VIP_CONNECTIVITY_CHECK:
      return "api-vip-connectivity-check";
    case types::v1::STEP_TYPE_TANG_CONNECTIVITY_CHECK:
      return "tang-connectivity-check";
    case types::v1::STEP_TYPE_NTP_SYNCHRONIZER:
      return "ntp-synchronizer";
    case types::v1::STEP_TYPE_INSTALLATION_DISK_SPEED_CHECK:
      return "installation-disk-speed-check";
    case types::v1::STEP_TYPE_CONTAINER_IMAGE_AVAILABILITY:
      return "container-image-availability";
    case types::v1::STEP_TYPE_DOMAIN_RESOLUTION:
      return "domain-resolution";
    case types::v1::STEP_TYPE_STOP_INSTALLATION:
      return "stop-installation";
    case types::v1::STEP_TYPE_LOGS_GATHER:
      return "logs-gather";
    case types::v1::STEP_TYPE_NEXT_STEP_RUNNER:
      return "next-step-runner";
    case types::v1::STEP_TYPE_UPGRADE_AGENT:
      return "upgrade-agent";
    case types::v1::STEP_TYPE_DOWNLOAD_BOOT_ARTIFACTS:
      return "download-boot-artifacts";
    case types::v1::STEP_TYPE_REBOOT_FOR_RECLAIM:
      return "reboot-for-reclaim";
    case types::v1::STEP_TYPE_VERIFY_VIPS:
      return "verify-vips";
    default:
      return Unknown();
  }
}

absl::string_view FinalizingStageName(types::v1::FinalizingStage stage) {
  switch (stage) {
    case types::v1::FINALIZING_STAGE_UNSPECIFIED:
      return "";
    case types::v1::FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS:
      return "Waiting for cluster operators";
    case types::v1::FINALIZING_STAGE_ADDING_ROUTER_CA:
      return "Adding router ca";
    case types::v1::FINALIZING_STAGE_APPLYING_OLM_MANIFESTS:
      return "Applying olm manifests";
    case types::v1::FINALIZING_STAGE_WAITING_FOR_OLM_OPERATORS_CSV_INITIALIZATION:
      return "Waiting for olm operators csv initialization";
    case types::v1::FINALIZING_STAGE_WAITING_FOR_OLM_OPERATORS_CSV:
      return "Waiting for olm operators csv";
    case types::v1::FINALIZING_STAGE_WAITING_FOR_OLM_OPERATOR_SETUP_JOBS:
      return "Waiting for OLM operator setup jobs";
    case types::v1::FINALIZING_STAGE_DONE:
      return "Done";
    default:
      return Unknown();
  }
}

absl::string_view ValidationStatusName(types::v1::ValidationStatus status) {
  switch (status) {
    case types::v1::VALIDATION_STATUS_UNSPECIFIED:
      return "";
    case types::v1::VALIDATION_STATUS_SUCCESS:
      return "success";
    case types::v1::VALIDATION_STATUS_SUCCESS_SUPPRESS_OUTPUT:
      return "success-suppress-output";
    case types::v1::VALIDATION_STATUS_FAILURE:
      return "failure";
    case types::v1::VALIDATION_STATUS_PENDING:
      return "pending";
    case types::v1::VALIDATION_STATUS_ERROR:
      return "error";
    case types::v1::VALIDATION_STATUS_DISABLED:
      return "disabled";
    default:
      return Unknown();
  }
}

absl::string_view ValidationCategoryName(types::v1::ValidationCategory category) {
  switch (category) {
    case types::v1::VALIDATION_CATEGORY_UNSPECIFIED:
      return "";
    case types::v1::VALIDATION_CATEGORY_HARDWARE:
      return "hardware";
    case types::v1::VALIDATION_CATEGORY_NETWORK:
      return "network";
    case types::v1::VALIDATION_CATEGORY_OPERATORS:
      return "operators";
    case types::v1::VALIDATION_CATEGORY_HOSTS_DATA:
      return "hosts-data";
    case types::v1::VALIDATION_CATEGORY_CONFIGURATION:
      return "configuration";
    default:
      return Unknown();
  }
}

}  // namespace assisted::orchestrator::core
