"""Writes holdout_v2.jsonl and holdout_v2_batch2.jsonl beside it: messages written by hand, one
by one, not from templates. The planted corpus (planted_v2.jsonl) was written from templates
before the recognizers were changed for issue 30, and the change was made looking at its
misses: its recall is on forms the recognizers were then taught. These two batches measure
messages written differently:

- batch 1 was written after that change, before it was measured on them. First run: 79/92
  (0.859), 3 placeholders in 12 clean messages. The general gaps it showed were then fixed
  (brackets after a cue, initials, "titular"/"her name", a floor after a dash, "cad", a
  passport a few words after its cue, British NI numbers, business phone lines, year-led
  references), so it is no longer held out: 89/92 now.
- batch 2 was written after those fixes and measured once: 40/44 (0.909). Nothing was changed
  for its misses; its one false positive (a title taken for a name) was a bug, fixed.

    python tests/data/redaction/make_holdout_v2.py

Same format as planted_v2.jsonl. Values are invented; checksums valid where the kind has one
(computed with python-stdnum)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from tests.support.redaction import fold, parts  # noqa: E402

OUT = Path(__file__).with_name("holdout_v2.jsonl")

P = tuple[str, str, str]  # kind, value, form
MESSAGES: list[tuple[str, str, list[str], list[P], list[str]]] = [
    # id, text, records, planted, keep
    ("h-es-01",
     "Buenas noches!! Soy Mari Carmen Rodríguez Sanz. Os escribo x el pedido order_18, q me "
     "llegó roto. Mi DNI: 05 418 296 W y el tlf 654 32 10 98. Gracias",
     [], [("person", "Mari Carmen Rodríguez Sanz", "soy, capitals"),
          ("national id", "05 418 296 W", "dni spaced groups, cue"),
          ("phone", "654 32 10 98", "es 3-2-2-2")], ["order_18"]),
    ("h-es-02",
     "hola!! el reembolso de los 42,00 EUR lo quiero en mi cuenta ES55 0081 0216 7800 0123 4567 "
     "(Banco Sabadell) a nombre de mi madre, Encarnación Villanueva. ella vive en C/ de la Paz, "
     "14 - 2ºD, 46003 València",
     [], [("iban", "ES55 0081 0216 7800 0123 4567", "spaced, cue"),
          ("person", "Encarnación Villanueva", "relative with comma"),
          ("address", "C/ de la Paz, 14 - 2ºD", "c/ with dash before the floor"),
          ("postcode", "46003", "cp + city")], ["42,00 EUR", "Banco Sabadell"]),
    ("h-es-03",
     "Buenos días, les escribo de parte de mi abuelo (Anselmo Quiroga Ferreiro), que no se "
     "maneja con internet. Su teléfono fijo: 981 22 34 56. Nació el 2/3/1941.",
     [], [("person", "Anselmo Quiroga Ferreiro", "relative, name in brackets"),
          ("phone", "981 22 34 56", "es landline 3-2-2-2"),
          ("birth date", "2/3/1941", "es slashes, nació")], []),
    ("h-es-04",
     "Ya os di mis datos ayer: maría josé peña ibáñez, calle san vicente mártir 85 pta 12, "
     "valencia. Teléfono 963 12 45 78. El pedido es el order_203.",
     [], [("person", "maría josé peña ibáñez", "lower case, no cue"),
          ("address", "calle san vicente mártir 85 pta 12", "lower calle, pta"),
          ("phone", "963 12 45 78", "es landline 3-2-2-2")], ["order_203"]),
    ("h-es-05",
     "Número de tarjeta: 4532-0151-1283-0366, caducidad 11/28, CVV 071. Por favor anuladla.",
     [], [("card", "4532-0151-1283-0366", "dashes"), ("card expiry", "11/28", "caducidad"),
          ("card security code", "071", "CVV")], []),
    ("h-es-06",
     "Me han cobrado dos veces en la visa 4012 8888 8888 1881. El NIE de mi marido es "
     "X3918274V.",
     [], [("card", "4012 8888 8888 1881", "spaced"),
          ("national id", "X3918274V", "nie compact, cue")], []),
    ("h-es-07",
     "Mi matrícula es la 2345-JKL y me multaron en vuestro parking el 28/11. Os paso mi "
     "pasaporte por si acaso: PAE 482913.",
     [], [("licence plate", "2345-JKL", "dash, cue"),
          ("passport", "PAE 482913", "spaced, cue words between")], ["28/11"]),
    ("h-es-08",
     "Hola, mi correo es pepa.lorente(at)gmail.com y mi otro mail PLORENTE1978@HOTMAIL.ES",
     [], [("email", "pepa.lorente(at)gmail.com", "(at)"),
          ("email", "PLORENTE1978@HOTMAIL.ES", "upper")], []),
    ("h-es-09",
     "Dirección IP desde la que compré: 81.44.203.17 (Movistar). Y mi IPv6 "
     "2a02:9130:8f2c:4e01:0:0:0:1b",
     [], [("ip address", "81.44.203.17", "v4, cue"),
          ("ip address", "2a02:9130:8f2c:4e01:0:0:0:1b", "v6 with zero groups")], ["Movistar"]),
    ("h-es-10",
     "Para la factura: NIF 48291736-Q, Avda. Blasco Ibáñez 132, 3ª pta. 8, 46022 Valencia.",
     [], [("national id", "48291736-Q", "nif dash, cue"),
          ("address", "Avda. Blasco Ibáñez 132, 3ª pta. 8", "avda with floor and door"),
          ("postcode", "46022", "cp + city")], []),
    ("h-es-11",
     "Os reenvío lo que me pedisteis. Nº Seguridad Social: 28 71234560 28. IBAN "
     "ES56-2038-1783-6760-0045-6789.",
     [], [("es social security", "28 71234560 28", "spaces, cue"),
          ("iban", "ES56-2038-1783-6760-0045-6789", "dashes, cue")], []),
    ("h-es-12",
     "soy el hijo de la señora ramona, que es la titular. ella no tiene email. su móvil "
     "699887766",
     [], [("person", "ramona", "señora, lower case"), ("phone", "699887766", "es compact")], []),
    ("h-es-13",
     "Quedo a la espera.\nAtentamente,\n\nFrancisco Javier Gómez-Acebo\nDirector Financiero",
     [], [("person", "Francisco Javier Gómez-Acebo", "sign-off, then a job title")],
     ["Director Financiero"]),
    ("h-es-14",
     "Que me devolváis el dinero YA. Me llamo ÓSCAR NAVARRO y estoy harto.",
     [], [("person", "ÓSCAR NAVARRO", "me llamo, upper case")], []),
    ("h-es-15",
     "mi número de la seguridad social es 08/40123456/54, lo pone en la nómina",
     [], [("es social security", "08/40123456/54", "slashes, cue")], []),
    ("h-es-16",
     "Hola, escribo desde el móvil de mi hermana (+34 622 48 91 37). Soy Nicolás y mi pedido es "
     "el order_17. Mi email n_bermejo77@yahoo.es",
     [], [("phone", "+34 622 48 91 37", "es +34 3-2-2-2"), ("person", "Nicolás", "soy"),
          ("email", "n_bermejo77@yahoo.es", "plain")], ["order_17"]),
    ("h-es-17",
     "Domicilio: Travesía de Cuba 204, 1º izq., 36206 Vigo (Pontevedra).",
     [], [("address", "Travesía de Cuba 204, 1º izq.", "travesía with floor"),
          ("postcode", "36206", "cp + city")], []),
    ("h-es-18",
     "Os paso los datos de mi hija para el envío: Lucía Ortega Blanco, nacida el 12 de octubre "
     "de 2009, DNI 77120483-B.",
     [], [("person", "Lucía Ortega Blanco", "after a colon, no cue"),
          ("birth date", "12 de octubre de 2009", "es words, nacida, recent"),
          ("national id", "77120483-B", "dni dash, cue")], []),
    ("h-es-19",
     "mi marido se llama jon ander ugarte y el pedido lo hizo él, order_18",
     [], [("person", "jon ander ugarte", "se llama, lower case")], ["order_18"]),
    ("h-es-20",
     "tarjeta: 4916 3388 1902 5510 cad 03/27 cvv: 412",
     [], [("card", "4916 3388 1902 5510", "spaced"),
          ("card expiry", "03/27", "cad without a dot"),
          ("card security code", "412", "cvv:")], []),
    ("h-en-01",
     "Hi there, Declan Fitzgerald here again. Still no refund for order_17 (42.00 EUR). Ring me "
     "on 07911 123456 or email declan.fitz@outlook.ie.",
     [], [("person", "Declan Fitzgerald", "here"), ("phone", "07911 123456", "uk mobile"),
          ("email", "declan.fitz@outlook.ie", "plain .ie")], ["order_17", "42.00 EUR"]),
    ("h-en-02",
     "My card is a Mastercard 5271 4830 4911 8721, exp. 09/29, security code 882.",
     [], [("card", "5271 4830 4911 8721", "spaced"), ("card expiry", "09/29", "exp."),
          ("card security code", "882", "security code")], []),
    ("h-en-03",
     "Please send the replacement to Flat 7, 22 Albemarle Road, Beckenham BR3 5LN. My partner "
     "Tomasz will sign for it.",
     [], [("address", "Flat 7, 22 Albemarle Road", "flat, road"),
          ("postcode", "BR3 5LN", "uk after town"), ("person", "Tomasz", "relative")], []),
    ("h-en-04",
     "DOB 14.06.1979, SSN 219-45-8812 (for the US account).",
     [], [("birth date", "14.06.1979", "dots, DOB"), ("us ssn", "219-45-8812", "dashes, cue")],
     []),
    ("h-en-05",
     "this is sarah from accounts payable at Brightwater Ltd - our IBAN GB15 MIDL 4005 1512 3456 "
     "78, ref INV-2231.",
     [], [("person", "sarah", "this is, lower case"),
          ("iban", "GB15 MIDL 4005 1512 3456 78", "gb spaced")], ["INV-2231", "Brightwater Ltd"]),
    ("h-en-06",
     "The courier left it with my neighbour at 3 Cranbrook Close. His reg plate is LV19 KTE if "
     "that helps.",
     [], [("address", "3 Cranbrook Close", "close"), ("licence plate", "LV19 KTE", "uk, cue")],
     []),
    ("h-en-07",
     "IP logged: 2001:0db8:0000:0000:0000:ff00:0042:8329. Customer: Mr. P. Okonkwo-Adeyemi.",
     [], [("ip address", "2001:0db8:0000:0000:0000:ff00:0042:8329", "v6 full, leading zeros"),
          ("person", "Okonkwo-Adeyemi", "Mr. and an initial")], []),
    ("h-en-08",
     "my passport no is 551 234 789 (British)",
     [], [("passport", "551 234 789", "nine digits in groups")], []),
    ("h-en-09",
     "my wife's name on the account is Ngozi Eze-Williams, d.o.b 3rd March 1984",
     [], [("person", "Ngozi Eze-Williams", "wife's name ... is"),
          ("birth date", "3rd March 1984", "ordinal, d.o.b")], []),
    ("h-en-10",
     "Hi, it's Callum. I moved: new address is 41 Glenpark Terrace, Edinburgh EH6 5QP. Phone "
     "+44 131 496 0732.",
     [], [("person", "Callum", "it's"), ("address", "41 Glenpark Terrace", "terrace"),
          ("postcode", "EH6 5QP", "uk after town"), ("phone", "+44 131 496 0732", "uk +44")],
     ["Edinburgh"]),
    ("h-en-11",
     "Card: 3714 496353 98431. CVC 7391. Expires 04/2030.",
     [], [("card", "3714 496353 98431", "amex 4-6-5"), ("card security code", "7391", "CVC"),
          ("card expiry", "04/2030", "expires")], []),
    ("h-en-12",
     "The van that hit my car in your car park was 9012 HBW.",
     [], [("licence plate", "9012 HBW", "spanish, no cue word before")], []),
    ("h-en-13",
     "Hello, I'm Ms. Priya Raghunathan-Iyer, customer since 2015. My NI number is QQ 12 34 56 C.",
     [], [("person", "Priya Raghunathan-Iyer", "I'm Ms."),
          ("national id", "QQ 12 34 56 C", "uk national insurance")], ["2015"]),
    ("h-en-14",
     "Thanks for nothing.\nRegards,\nkwabena",
     [], [("person", "kwabena", "sign-off lower case")], []),
    ("h-en-15",
     "my ip is 10.0.0.138 and my router's public ip 88.12.190.4",
     [], [("ip address", "10.0.0.138", "v4 private"), ("ip address", "88.12.190.4", "v4")], []),
    ("h-en-16",
     "Please call my husband, Graham, on 0161 496 0419 — not me.",
     [], [("person", "Graham", "relative with commas"),
          ("phone", "0161 496 0419", "uk landline")], []),
    ("h-en-17",
     "Billing address: 1187 Larchmont Ave, Portland, OR 97209",
     [], [("address", "1187 Larchmont Ave", "us ave"), ("postcode", "97209", "us state zip")],
     ["Portland"]),
    ("h-en-18",
     "My sister (Saoirse) paid with her card. Her email: aoife.mccarthy93 at gmail dot com",
     [], [("person", "Saoirse", "relative, name in brackets"),
          ("email", "aoife.mccarthy93 at gmail dot com", "at dot")], []),
    ("h-en-19",
     "my daughter was born 2011-05-17 and the account is in her name, Ella-Rose Whitmore.",
     [], [("birth date", "2011-05-17", "iso, born, recent"),
          ("person", "Ella-Rose Whitmore", "her name, no cue")], []),
    ("h-rec-01", "El sr. cuesta dice que le cobraron dos veces (order_17).",
     ["Luis Miguel Fernández-Cuesta"], [("record name", "cuesta", "hyphenated part alone")],
     ["order_17"]),
    ("h-rec-02", "grant called back re order_18, asked for eilidh.",
     ["Eilidh MacLeod-Grant"], [("record name", "grant", "hyphenated part alone"),
                                ("record name", "eilidh", "first name lower case")],
     ["order_18"]),
    ("h-rec-03", "Nuño pregunta si ya está lo del order_203; dile a alvarez que sí.",
     ["Nuño Álvarez de Toledo"], [("record name", "Nuño", "first name"),
                                  ("record name", "alvarez", "surname without accent")],
     ["order_203"]),
    # nothing personal: the service's data, written to tempt the recognizers
    ("h-neg-01",
     "The order_17 was shipped from our Coslada warehouse on 2026-11-29 at 07:45; 3 parcels, "
     "12.5 kg total.", [], [], ["order_17", "Coslada", "2026-11-29", "07:45", "12.5 kg"]),
    ("h-neg-02",
     "Factura n.º 2026/000412, base imponible 1.034,71 €, IVA 21 % (217,29 €), total 1.252,00 €.",
     [], [], ["2026/000412", "1.034,71 €", "217,29 €", "1.252,00 €"]),
    ("h-neg-03",
     "El modelo BX-2200 en talla 38 está agotado hasta el 15/12; el SKU BX2200-38-NEG vuelve en "
     "enero.", [], [], ["BX-2200", "talla 38", "15/12", "BX2200-38-NEG"]),
    ("h-neg-04",
     "Your voucher ABCD-EFGH-1234 expires on 31/12/2026 and is worth £25.00.",
     [], [], ["ABCD-EFGH-1234", "31/12/2026", "£25.00"]),
    ("h-neg-05",
     "Tracking: 1Z 999 AA1 01 2345 6784 (UPS Ground), estimated delivery Tuesday.",
     [], [], ["1Z 999 AA1 01 2345 6784", "UPS Ground"]),
    ("h-neg-06",
     "Soy de Sevilla y el pedido order_203 salió de Madrid el 1 de diciembre.",
     [], [], ["Sevilla", "order_203", "Madrid", "1 de diciembre"]),
    ("h-neg-07",
     "Con la política refund_v3 el plazo es de 14 días naturales desde la entrega (art. 102 "
     "TRLGDCU).", [], [], ["refund_v3", "14 días", "art. 102 TRLGDCU"]),
    ("h-neg-08",
     "Reference 2026-1130-0042-7781 for the chargeback of 89.90 EUR on the card ending 4242.",
     [], [], ["2026-1130-0042-7781", "89.90 EUR", "4242"]),
    ("h-neg-09", "Hi team, can you check ticket tkt_order_18? Thanks!", [], [],
     ["tkt_order_18", "Thanks!"]),
    ("h-neg-10",
     "Pedido 100234 del 03/12/2026 (2 uds. x 45,00 €) enviado con SEUR, ref. envío 8901 2345 67.",
     [], [], ["100234", "03/12/2026", "45,00 €", "SEUR", "8901 2345 67"]),
    ("h-neg-11",
     "The app shows version 3.4.12 and build 2026.11.30.1; the error code is E-4012.",
     [], [], ["3.4.12", "2026.11.30.1", "E-4012"]),
    ("h-neg-12",
     "Llamé al 900 100 200 (atención al cliente de la tienda) y no contestan.",
     [], [], ["atención al cliente"]),
]  # fmt: skip


# written after the fixes the first batch led to, and measured once: nothing was changed for it
MESSAGES_2: list[tuple[str, str, list[str], list[P], list[str]]] = [
    ("b-es-01",
     "Buenas, os escribo desde el correo de mi mujer. El pedido order_17 venía a mi nombre, "
     "Ignacio Bravo Montes. Mi DNI es el 52.184.337-M y el móvil 639 44 87 21.",
     [], [("person", "Ignacio Bravo Montes", "a mi nombre, comma"),
          ("national id", "52.184.337-M", "dni dots dash, cue"),
          ("phone", "639 44 87 21", "es 3-2-2-2")], ["order_17"]),
    ("b-es-02",
     "Hola! Cambiad la dirección de envío a: Calle de Ríos Rosas, 118, 4º C, 28003 Madrid. "
     "Gracias!!",
     [], [("address", "Calle de Ríos Rosas, 118, 4º C", "calle with floor"),
          ("postcode", "28003", "cp + city")], []),
    ("b-es-03",
     "Pagué con Bizum al 611 908 276, a nombre de Rocío. Ref. operación 4471-B.",
     [], [("phone", "611 908 276", "es 3-3-3"), ("person", "Rocío", "a nombre de")],
     ["4471-B"]),
    ("b-es-04",
     "Mi tarjeta Visa terminada en... bueno, entera: 4556 7375 8689 9855, CVV2: 318, caduca "
     "10/2028.",
     [], [("card", "4556 7375 8689 9855", "spaced"), ("card security code", "318", "CVV2:"),
          ("card expiry", "10/2028", "caduca mm/yyyy")], []),
    ("b-es-05",
     "Os dejo el IBAN de la cuenta de mi padre: es36 0182 4420 5802 0159 8743",
     [], [("iban", "es36 0182 4420 5802 0159 8743", "lower spaced, cue")], []),
    ("b-es-06",
     "NIE: Z-0827361-X. Pasaporte marroquí: UZ4815263.",
     [], [("national id", "Z-0827361-X", "nie dashes, cue"),
          ("passport", "UZ4815263", "moroccan, cue and a word")], []),
    ("b-es-07",
     "hola soy yolanda, la de las cortinas. me podeis llamar al 677-12-34-56?",
     [], [("person", "yolanda", "soy, lower case"), ("phone", "677-12-34-56", "es dashes 3-2-2-2")],
     []),
    ("b-es-08",
     "Ayer os llamé desde el fijo (93 412 77 05) y me colgaron.",
     [], [("phone", "93 412 77 05", "es landline in brackets")], []),
    ("b-es-09",
     "El repartidor dejó el paquete en el buzón del portal, Ronda de Sant Pere 52, 08010 BCN.",
     [], [("address", "Ronda de Sant Pere 52", "ronda"), ("postcode", "08010", "cp + BCN")], []),
    ("b-es-10",
     "Por favor no uséis mi correo antiguo (j.ferrandiz@telefonica.net), ahora es "
     "jferrandiz1961@gmail.com",
     [], [("email", "j.ferrandiz@telefonica.net", "in brackets"),
          ("email", "jferrandiz1961@gmail.com", "plain")], []),
    ("b-es-11",
     "fecha nacimiento 07-11-1958 y n.º de la S.S. 46/10293847/53",
     [], [("birth date", "07-11-1958", "dashes, fecha nacimiento"),
          ("es social security", "46/10293847/53", "slashes, S.S.")], []),
    ("b-es-12",
     "El que recoge es mi hijo Marcos, DNI 49876543P, que trabaja por las mañanas.",
     [], [("person", "Marcos", "relative"), ("national id", "49876543P", "dni compact, cue")],
     []),
    ("b-en-01",
     "Hey, it's Jordan Blake. Order order_203 never came. My cell is 917-555-0163 and email "
     "jordan.blake@protonmail.com",
     [], [("person", "Jordan Blake", "it's"), ("phone", "917-555-0163", "us dashes"),
          ("email", "jordan.blake@protonmail.com", "plain")], ["order_203"]),
    ("b-en-02",
     "Ship to: Unit 4, 19 Harbour Way, Poole BH15 1AB. Leave with neighbour at No. 21 if out.",
     [], [("address", "Unit 4, 19 Harbour Way", "unit, way"),
          ("postcode", "BH15 1AB", "uk after town")], []),
    ("b-en-03",
     "I've attached a photo of my driving licence (MORGA657054SM9IJ).",
     [], [("national id", "MORGA657054SM9IJ", "uk driving licence")], []),
    ("b-en-04",
     "Please refund to my Revolut: GB84 REVO 0099 6912 3456 78",
     [], [("iban", "GB84 REVO 0099 6912 3456 78", "gb spaced, no iban word")], []),
    ("b-en-05",
     "my daughter Lily-May ordered it using my card, the Amex: 3782 822463 10005",
     [], [("person", "Lily-May", "relative, hyphenated first name"),
          ("card", "3782 822463 10005", "amex 4-6-5")], []),
    ("b-en-06",
     "From IP 86.134.22.250 at 23:14 GMT, then from 2a00:23c7:8e8a:bd01:5d2b:c4c2:9a1f:70e3.",
     [], [("ip address", "86.134.22.250", "v4, cue"),
          ("ip address", "2a00:23c7:8e8a:bd01:5d2b:c4c2:9a1f:70e3", "v6 full")], ["23:14 GMT"]),
    ("b-en-07",
     "Regards\n\nTom Hardwick\nFlat 2B, 88 Mill Lane\nLeeds LS6 2AD\nMob: 07700 900461",
     [], [("person", "Tom Hardwick", "signature block"),
          ("address", "Flat 2B, 88 Mill Lane", "flat, lane"), ("postcode", "LS6 2AD", "uk"),
          ("phone", "07700 900461", "uk mobile")], []),
    ("b-en-08", "SSN is 412 68 9920, as on the form.",
     [], [("us ssn", "412 68 9920", "spaces, cue")], []),
    ("b-en-09",
     "The parcel was for my grandmother, Mrs. Edith Okafor, at 7 Rosewood Gardens, Luton LU2 7HP.",
     [], [("person", "Edith Okafor", "relative then Mrs."),
          ("address", "7 Rosewood Gardens", "gardens"), ("postcode", "LU2 7HP", "uk")], []),
    ("b-en-10", "hi its me again, dave, the guy with the broken tv. order_18",
     [], [("person", "dave", "lower case, no cue")], ["order_18"]),
    ("b-neg-01",
     "Your order ORD-88213-ES (3 items) ships from warehouse MAD-4 on 2026-12-04; carrier ref "
     "6N 4821 9937 ES.", [], [], ["ORD-88213-ES", "MAD-4", "2026-12-04", "6N 4821 9937 ES"]),
    ("b-neg-02",
     "Se aplicó el cupón BLACK50 (−50%) al pedido order_203; importe final 64,95 €, envío 4,99 €.",
     [], [], ["BLACK50", "order_203", "64,95 €", "4,99 €"]),
    ("b-neg-03",
     "Tamaño 120x200 cm, 2 uds., peso 14,5 kg; precio unitario 149,00 € (IVA incl.)",
     [], [], ["120x200 cm", "14,5 kg", "149,00 €"]),
    ("b-neg-04",
     "Server time 2026-12-01 09:00:00+01:00; request id 7f3a9c2e-41b2-4d6e-9a8f-2c1d5e6b7a90.",
     [], [], ["2026-12-01 09:00:00+01:00", "7f3a9c2e-41b2-4d6e-9a8f-2c1d5e6b7a90"]),
    ("b-neg-05", "Valoración: 4,5/5. Lo recomendaría. Entrega en 48/72 h.", [], [],
     ["4,5/5", "48/72 h"]),
    ("b-neg-06", "Pedido realizado desde la tienda de Castellana 200 (Madrid) el 28/11/2026.",
     [], [], ["Castellana 200", "28/11/2026"]),
]  # fmt: skip


def write(messages: list[tuple[str, str, list[str], list[P], list[str]]], out: Path) -> None:
    docs: list[dict[str, Any]] = []
    for id_, text, records, planted, keep in messages:
        for _kind, value, _form in planted:
            assert value in text, (id_, value)
            rest = fold(text)
            for _, other, _ in sorted(planted, key=lambda p: -len(p[1])):
                rest = rest.replace(fold(other), " ")
            for p in parts(value):  # no part of it elsewhere in the message
                assert not re.search(rf"(?<![^\W_]){re.escape(p)}(?![^\W_])", rest), (id_, p)
        for k in keep:
            assert k in text, (id_, k)
        docs.append({
            "id": id_, "lang": "neg" if "-neg-" in id_ else id_.split("-")[1],
            "records": records, "text": text,
            "planted": [{"kind": k, "value": v, "form": f} for k, v, f in planted],
            "keep": keep,
        })  # fmt: skip
    with out.open("w", encoding="utf-8") as f:
        for doc in docs:
            f.write(json.dumps(doc, ensure_ascii=False) + "\n")
    n = sum(len(d["planted"]) for d in docs)
    kinds = {p["kind"] for d in docs for p in d["planted"]}
    print(f"{out}: {len(docs)} messages, {n} planted values of {len(kinds)} kinds")


def main() -> None:
    write(MESSAGES, OUT)
    write(MESSAGES_2, OUT.with_name("holdout_v2_batch2.jsonl"))


if __name__ == "__main__":
    main()
