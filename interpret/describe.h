/* Naming things for people: transactions as (session,id) with the ids given
 * in the input, operations as r(key,value) / w(key,value). Every report
 * (text, JSON, DOT) uses these so a transaction reads the same everywhere. */
#ifndef PSI_INTERPRET_DESCRIBE_H
#define PSI_INTERPRET_DESCRIBE_H

#include "core/history.h"

#include <stddef.h>

/* "(session,id)", or "(init)" for the initial transaction. */
void psi_fmt_txn(const psi_history *h, uint32_t t, char *buf, size_t n);
/* "r(key,value)", "r(key,init)", "w(key,value)", "r(key,[v1 v2])". */
void psi_fmt_op(const psi_history *h, uint32_t op, char *buf, size_t n);
/* Transaction t's operations with psi_fmt_op, separated by sep (cut off
 * when buf is full); for the initial transaction "writes every key's
 * initial value". */
void psi_fmt_txn_ops(const psi_history *h, uint32_t t, const char *sep, char *buf, size_t n);

#endif
