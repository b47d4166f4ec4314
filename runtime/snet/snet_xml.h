/*
 * snet_xml.h - S-Net records in the XML format of the original S-Net
 * runtime (library target snet_xml; libxml2). docs/SNET-XML.md has the
 * details; in short, a stream of
 *
 *     <?xml version="1.0" ?>
 *     <record xmlns="snet-home.org" type="data" mode="textual" >
 *     <field label="x" interface="C4SNet">(int)42</field>
 *     <tag label="T">3</tag>
 *     <btag label="B">1</btag>
 *     </record>
 *     ...
 *     <record type="terminate" />
 *
 * Field values are "(TYPE)VALUE", C4SNet's textual form (c4snet_runtime.h):
 * the C types (int, long, short, char, unsigned ..., float, double, arrays
 * "(int[3])1,2,3") are read as C4SNet data, and a single whole number or
 * real becomes an int or double field unless the reader keeps C4SNet data
 * (snet_xml_reader_keep_c4snet, for programs whose boxes are C4SNet);
 * string and any registered field type are read and written with that
 * type's own text ("(string)\"hi\""). C4SNet data is written exactly as the
 * original runtime wrote it.
 */
#ifndef SNET_XML_H
#define SNET_XML_H

#include "snet.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct snet_xml_reader snet_xml_reader;

/* A reader over len bytes of data (copied) named name in messages; extra
 * field types in types[0..ntypes). Returns SNET_OK or SNET_ENOMEM. */
int snet_xml_reader_open_memory(snet_xml_reader **out, const char *data, size_t len,
                                const char *name, const snet_field_type *const *types,
                                size_t ntypes);
/* The same over everything in (read at once). SNET_ESYSTEM if it cannot
 * be read (the message is in err). */
int snet_xml_reader_open(snet_xml_reader **out, FILE *in, const char *name,
                         const snet_field_type *const *types, size_t ntypes, char *err,
                         size_t errlen);

/* Keep fields of C types as C4SNet data (c4snet_field) rather than making
 * single numbers int and double fields (the default). Before the first read. */
void snet_xml_reader_keep_c4snet(snet_xml_reader *r, bool keep);

/* The next record: 1 with *rec set (the caller owns it), 0 at the end of
 * the input or at a terminate record, -1 on an error (one line saying
 * where and what: snet_xml_reader_error; no record after it is read). */
int snet_xml_read(snet_xml_reader *r, snet_record **rec);
const char *snet_xml_reader_error(const snet_xml_reader *r);
/* Records read so far. */
unsigned long snet_xml_records_read(const snet_xml_reader *r);
void snet_xml_reader_close(snet_xml_reader *r);

/* Write one data record, and the terminate record after the last. */
int snet_xml_write(FILE *out, const snet_record *rec);
int snet_xml_write_end(FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* SNET_XML_H */
