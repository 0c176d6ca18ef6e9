/* The table of datatypes and ops both correctness checks draw on (coll_check.c: toporr's
 * algorithms; nonblocking_check.c: the nonblocking and persistent interceptors): the types
 * {int, double, float complex, a strided pair of ints, a struct of int and double}, the ops
 * {sum, max, bxor, a user commutative sum} where MPI defines the pair, deterministic contents
 * and the comparison with the MPI library's result. One test program per translation unit:
 * everything here is static. */
#ifndef TOPORR_CLIENT_MPI_TESTING_COLL_TABLE_H_
#define TOPORR_CLIENT_MPI_TESTING_COLL_TABLE_H_

#include <complex.h>
#include <math.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

static int rank, size;
static MPI_Datatype vec_type, struct_type;
static MPI_Op user_op;
static long cases, failures;

typedef struct {
  int i;
  double d;
} Pair;

enum { kInt, kDouble, kComplex, kVector, kStruct, kNumTypes };
static const char* kTypeNames[] = {"int", "double", "complex", "vector", "struct"};
enum { kSum, kMax, kBxor, kUser, kNumOps };
static const char* kOpNames[] = {"sum", "max", "bxor", "user"};

/* Elements per datatype element (vector: 2 ints at stride 2 -> extent 3 ints). */
static size_t ElementBytes(int t) {
  switch (t) {
    case kInt:
      return sizeof(int);
    case kDouble:
      return sizeof(double);
    case kComplex:
      return sizeof(float complex);
    case kVector:
      return 3 * sizeof(int);
    default:
      return sizeof(Pair);
  }
}

static MPI_Datatype TypeOf(int t) {
  switch (t) {
    case kInt:
      return MPI_INT;
    case kDouble:
      return MPI_DOUBLE;
    case kComplex:
      return MPI_C_FLOAT_COMPLEX;
    case kVector:
      return vec_type;
    default:
      return struct_type;
  }
}

static MPI_Op OpOf(int o) {
  switch (o) {
    case kSum:
      return MPI_SUM;
    case kMax:
      return MPI_MAX;
    case kBxor:
      return MPI_BXOR;
    default:
      return user_op;
  }
}

/* The pairs MPI defines: predefined ops on their basic types only (derived types, as the
 * vector and the struct, take user ops). */
static int Valid(int t, int o) {
  if (o == kUser) return 1;
  if (t == kStruct || t == kVector) return 0;
  if (t == kComplex) return o == kSum;
  if (t == kDouble) return o != kBxor;
  return 1;
}

/* A user commutative op: sum, element by element, for every type of the table. */
static void UserSum(void* in, void* inout, int* len, MPI_Datatype* type) {
  if (*type == MPI_INT) {
    for (int k = 0; k < *len; ++k) ((int*)inout)[k] += ((int*)in)[k];
  } else if (*type == MPI_DOUBLE) {
    for (int k = 0; k < *len; ++k) ((double*)inout)[k] += ((double*)in)[k];
  } else if (*type == MPI_C_FLOAT_COMPLEX) {
    for (int k = 0; k < *len; ++k) ((float complex*)inout)[k] += ((float complex*)in)[k];
  } else if (*type == vec_type) {
    for (int k = 0; k < *len; ++k) {
      ((int*)inout)[3 * k] += ((int*)in)[3 * k];
      ((int*)inout)[3 * k + 2] += ((int*)in)[3 * k + 2];
    }
  } else {
    for (int k = 0; k < *len; ++k) {
      ((Pair*)inout)[k].i += ((Pair*)in)[k].i;
      ((Pair*)inout)[k].d += ((Pair*)in)[k].d;
    }
  }
}

/* Deterministic contents of element k of rank r (the vector's gap ints stay -7). */
static void Fill(int t, void* buf, int count, int r, int salt) {
  for (long k = 0; k < count; ++k) {
    const int v = (int)((r * 131 + k * 7 + salt * 17) % 2001) - 1000;
    switch (t) {
      case kInt:
        ((int*)buf)[k] = v;
        break;
      case kDouble:
        ((double*)buf)[k] = v * 0.37 + r * 1e-3;
        break;
      case kComplex:
        ((float complex*)buf)[k] = v * 0.5f + (r - v) * 0.25f * I;
        break;
      case kVector:
        ((int*)buf)[3 * k] = v;
        ((int*)buf)[3 * k + 1] = -7;
        ((int*)buf)[3 * k + 2] = v ^ r;
        break;
      default:
        ((Pair*)buf)[k].i = v;
        ((Pair*)buf)[k].d = v * 0.25;
    }
  }
}

/* 1 when `got` matches `want`: bitwise for integers and for max, else within rounding. */
static int Same(int t, int o, const void* got, const void* want, int count) {
  for (long k = 0; k < count; ++k) {
    switch (t) {
      case kInt:
        if (((int*)got)[k] != ((int*)want)[k]) return 0;
        break;
      case kDouble: {
        double a = ((double*)got)[k], b = ((double*)want)[k];
        if (o == kMax ? a != b : fabs(a - b) > 1e-9 * (1 + fabs(b))) return 0;
        break;
      }
      case kComplex: {
        float complex a = ((float complex*)got)[k], b = ((float complex*)want)[k];
        if (cabsf(a - b) > 1e-3f * (1 + cabsf(b))) return 0;
        break;
      }
      case kVector:
        if (((int*)got)[3 * k] != ((int*)want)[3 * k] ||
            ((int*)got)[3 * k + 1] != ((int*)want)[3 * k + 1] ||
            ((int*)got)[3 * k + 2] != ((int*)want)[3 * k + 2])
          return 0;
        break;
      default:
        if (((Pair*)got)[k].i != ((Pair*)want)[k].i ||
            fabs(((Pair*)got)[k].d - ((Pair*)want)[k].d) > 1e-9 * (1 + fabs(((Pair*)want)[k].d)))
          return 0;
    }
  }
  return 1;
}

/* Counts one case, agreed on by every rank of MPI_COMM_WORLD (through the MPI library
 * directly, whatever a preloaded toporr takes over); rank 0 prints the first failures. */
static void Record(int ok, const char* what) {
  int all = 0;
  PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  ++cases;
  if (!all) {
    if (rank == 0 && failures < 20) printf("BAD %s\n", what);
    ++failures;
  }
}

/* Creates the table's derived datatypes and user op (after MPI_Init). */
static void CreateTableTypes(void) {
  MPI_Type_vector(1, 2, 2, MPI_INT, &vec_type); /* 2 ints, then a gap: resized to 3 ints */
  {
    MPI_Datatype raw = vec_type;
    int lens[2] = {1, 1};
    MPI_Aint disp[2] = {0, 2 * sizeof(int)};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    MPI_Datatype two;
    MPI_Type_create_struct(2, lens, disp, types, &two); /* ints at 0 and 2: a strided pair */
    MPI_Type_create_resized(two, 0, 3 * sizeof(int), &vec_type);
    MPI_Type_free(&two);
    MPI_Type_free(&raw);
  }
  MPI_Type_commit(&vec_type);
  {
    int lens[2] = {1, 1};
    MPI_Aint disp[2] = {offsetof(Pair, i), offsetof(Pair, d)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, raw;
    MPI_Type_create_struct(2, lens, disp, types, &raw);
    MPI_Type_create_resized(raw, 0, sizeof(Pair), &struct_type);
    MPI_Type_free(&raw);
    MPI_Type_commit(&struct_type);
  }
  MPI_Op_create(UserSum, 1, &user_op);
}

static void FreeTableTypes(void) {
  MPI_Op_free(&user_op);
  MPI_Type_free(&vec_type);
  MPI_Type_free(&struct_type);
}

#endif /* TOPORR_CLIENT_MPI_TESTING_COLL_TABLE_H_ */
