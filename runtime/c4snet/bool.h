/*
 * bool.h - the boolean type of the original S-Net runtime's headers, which
 * box sources written for it include. Here it is C99's bool (stdbool.h):
 * the original made it an int when stdbool.h was not included, which only
 * differs for code that stores values other than 0 and 1 in a bool.
 */
#ifndef C4SNET_BOOL_H
#define C4SNET_BOOL_H

#include <stdbool.h>

#endif /* C4SNET_BOOL_H */
