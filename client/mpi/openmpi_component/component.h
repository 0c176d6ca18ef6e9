/* What toporr's two Open MPI components share across their C/C++ boundary: toporr's settings
 * as MCA parameters (component_params.c registers them), and each component's toporr
 * (component_library.cc), built from them. The C++ side lives in libtoporr.so (Open MPI's), on
 * which both components depend, so that a process holds one copy of libtoporr's code however
 * many of the components, the PMPI layer and a program linked with -ltoporr it loads. Only C
 * types cross it. */
#ifndef TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_COMPONENT_H_
#define TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_COMPONENT_H_

#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The components' MCA parameters that configure toporr (client/config/client_options.h keys of the
 * same names), in the types Open MPI's MCA variables store; a null string is unset. */
struct toporr_mca_params {
  int64_t min_bytes;
  bool disable;
  bool verify;
  int verify_calls;
  bool check_arguments;
  bool reproducible;
  int deadline_ms;
  int verbose;
  char* report;
  char* address;
  char* socket;
  char* tls_ca;
  char* costs;
  char* hostmap;
  char* algorithm;
};

/* The components, each with its own toporr (its own MCA parameters). */
enum toporr_mca_component { TOPORR_MCA_COLL = 0, TOPORR_MCA_TOPO = 1 };

/* Fills *params with the process's configuration: defaults, the site file, TOPORR_*
 * (ProcessClientOptions). Strings point to storage that lives as long as the process. */
void toporr_mca_defaults(struct toporr_mca_params* params);

/* Builds `component`'s toporr from *params (which start from toporr_mca_defaults, so a
 * parameter the user did not set keeps the environment's or site file's value). The first
 * call per component wins; later calls change nothing. Returns 1 when toporr is enabled, 0
 * when disabled. */
int toporr_mca_configure(int component, const struct toporr_mca_params* params);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_COMPONENT_H_ */
