/* What toporr's two Open MPI components share across their C/C++ boundary: toporr's settings
 * as MCA parameters (the client's settings table; component_params.c registers them), and
 * each component's toporr
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

/* toporr's settings that are the components' MCA parameters: the client's settings table
 * (client/config/client_options.cc) as C sees it, in its order. `type` is how Open MPI stores
 * the value, `level` its ompi_info level (1..9), `groups` a mask of toporr_mca_group. */
enum toporr_mca_type {
  TOPORR_MCA_BOOL = 1,
  TOPORR_MCA_INT = 2,
  TOPORR_MCA_INT64 = 3,
  TOPORR_MCA_STRING = 4
};
enum toporr_mca_group {
  TOPORR_MCA_DECISION_SETTINGS = 1,  /* both components: what every decision reads */
  TOPORR_MCA_COLLECTIVE_SETTINGS = 2 /* the coll component: what toporr's collectives read */
};
struct toporr_mca_setting {
  const char* name;
  const char* help;
  int type;
  int level;
  int groups;
};

/* The storage of one parameter (the member of its type); a null string is unset. */
union toporr_mca_value {
  bool b;
  int i;
  int64_t l;
  char* s;
};

/* The most settings a component stores (an array of this many values each). */
#define TOPORR_MCA_MAX_SETTINGS 32

/* The settings, *count of them (at most TOPORR_MCA_MAX_SETTINGS); they live as long as the
 * process. */
const struct toporr_mca_setting* toporr_mca_settings(int* count);

/* The components, each with its own toporr (its own MCA parameters). */
enum toporr_mca_component { TOPORR_MCA_COLL = 0, TOPORR_MCA_TOPO = 1 };

/* Fills values[i] with setting i's value in the process's configuration: defaults, the site
 * file, TOPORR_* (ProcessClientOptions). Strings point to storage that lives as long as the
 * process. */
void toporr_mca_defaults(union toporr_mca_value* values);

/* Builds `component`'s toporr from values[i], setting i's (which start from
 * toporr_mca_defaults, so a parameter the user did not set keeps the environment's or site
 * file's value; a setting the component did not register keeps it too). The first call per
 * component wins; later calls change nothing. Returns 1 when toporr is enabled, 0 when
 * disabled. */
int toporr_mca_configure(int component, const union toporr_mca_value* values);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TOPORR_CLIENT_MPI_OPENMPI_COMPONENT_COMPONENT_H_ */
