"""Script payloads a student can put in a notebook, for the sanitiser's tests.

Each payload, if its script ran, would set ``window.__pwned`` (or the page title, or call
``alert``) to a value containing ``PWN``; the tests look for ``PWN`` in every script, event
handler, script link and active tag of the rendered page. ``MARKDOWN`` goes into a written
answer (or a ``text/markdown`` output), ``HTML`` into ``text/html`` outputs.
"""

from __future__ import annotations

HTML = {
    "script": "<script>window.__pwned='PWN-script'</script>",
    "img_onerror": "<img src=x onerror=\"window.__pwned='PWN-img'\">",
    "svg_onload": "<svg onload=\"window.__pwned='PWN-svg'\"><circle r=4 /></svg>",
    "iframe_js": "<iframe src=\"javascript:top.__pwned='PWN-iframe'\"></iframe>",
    "iframe_srcdoc": "<iframe srcdoc=\"<script>top.__pwned='PWN-srcdoc'</script>\"></iframe>",
    "a_javascript": "<a href=\"javascript:window.__pwned='PWN-a'\">click</a>",
    "a_entity": "<a href=\"jav&#x61;script:window.__pwned='PWN-ent'\">click</a>",
    "a_tab_entity": "<a href=\"java&#09;script:window.__pwned='PWN-tab'\">click</a>",
    "a_spaces": "<a href=\"  javascript:window.__pwned='PWN-sp'\">click</a>",
    "style_hide": "<style>.score{display:none} body{background:url('PWN-css')}</style>",
    "style_attr": "<div style=\"background:url(javascript:window.__pwned='PWN-style')\">x</div>",
    "meta_refresh": "<meta http-equiv=\"refresh\" "
                    "content=\"0;url=javascript:top.__pwned='PWN-meta'\">",
    "form": "<form action=\"/formgrader/api/grade/PWN-form\" method=\"post\">"
            "<input name=score value=99><button>ok</button></form>",
    "object": "<object data=\"javascript:top.__pwned='PWN-object'\"></object>",
    "embed": "<embed src=\"javascript:top.__pwned='PWN-embed'\">",
    "details_ontoggle": "<details open ontoggle=\"window.__pwned='PWN-details'\">d</details>",
    "body_onload": "<body onload=\"window.__pwned='PWN-body'\">",
    "base": "<base href=\"http://127.0.0.1:9/PWN-base/\">",
    "link_import": "<link rel=stylesheet href=\"http://127.0.0.1:9/PWN-link.css\">",
    "math_xlink": "<math><maction actiontype=statusline "
                  "xlink:href=\"javascript:window.__pwned='PWN-math'\">m</maction></math>",
    "input_autofocus": "<input autofocus onfocus=\"window.__pwned='PWN-focus'\">",
    "video_source": "<video><source onerror=\"window.__pwned='PWN-video'\"></video>",
    "marquee": "<marquee onstart=\"window.__pwned='PWN-marquee'\">m</marquee>",
    "comment_breakout": "<!--><img src=x onerror=\"window.__pwned='PWN-comment'\">-->",
    "noscript_mxss": "<noscript><p title=\"</noscript><img src=x "
                     "onerror=window.__pwned='PWN-noscript'>\"></noscript>",
    "img_remote": "<img src=\"http://127.0.0.1:9/PWN-beacon.png\">",
    "title": "<title>PWN-title</title>",
    "template": "<template><script>window.__pwned='PWN-template'</script></template>",
    # attribute breaking: quotes, slashes and backticks where a parser ends an attribute
    "attr_slash": "<img src=x/onerror=window.__pwned='PWN-slash'>",
    "attr_backtick": "<img src=`x` onerror=window.__pwned='PWN-backtick'>",
    "attr_quotes": "<img src=\"x\"\" onerror=\"window.__pwned='PWN-quotes'\">",
    # javascript: URLs a browser still runs: tab, newline entity, leading control character
    "js_url_tab": "<a href=\"java\tscript:window.__pwned='PWN-jstab'\">click</a>",
    "js_url_newline": "<a href=\"jav&#x0A;ascript:window.__pwned='PWN-jsnl'\">click</a>",
    "js_url_control": "<a href=\"\x01javascript:window.__pwned='PWN-jsctrl'\">click</a>",
    "formaction": "<form><button formaction=\"javascript:window.__pwned='PWN-formaction'\">"
                  "go</button></form>",
    # SVG's own ways to run script
    "svg_animate": "<svg><animate onbegin=\"window.__pwned='PWN-animate'\" attributeName=x "
                   "dur=1s></animate></svg>",
    "svg_xlink": "<svg><a xlink:href=\"javascript:window.__pwned='PWN-svglink'\">"
                 "<text y=20>x</text></a></svg>",
    # data: URIs (a page, an SVG image, a link)
    "data_iframe": "<iframe src=\"data:text/html,<script>alert('PWN-dataframe')</script>\">"
                   "</iframe>",
    "data_svg_img": "<img src=\"data:image/svg+xml,<svg onload=alert('PWN-datasvg')>\">",
    "data_link": "<a href=\"data:text/html,<script>alert('PWN-dataa')</script>\">click</a>",
    # CSS: expression(), @import, a script URL in a style
    "css_expression": "<div style=\"width:expression(window.__pwned='PWN-cssexpr')\">x</div>",
    "css_import": "<style>@import 'http://127.0.0.1:9/PWN-cssimport.css';</style>",
    # meta refresh to a data: page
    "meta_refresh_data": "<meta http-equiv=\"refresh\" "
                         "content=\"0;url=data:text/html,<script>alert('PWN-metadata')</script>\">",
}

#: "## Part ..." headings: the issue's case (a code span holding an image with onerror) and
#: its relatives; before a graded cell each could become that cell's feedback label
LABEL_HEADINGS = {
    "code": "## Part 2 `<img src=x onerror=\"window.__pwned='PWN-labelcode'\">`",
    "raw": "## Part 3 <img src=x onerror=\"window.__pwned='PWN-labelraw'\">",
    "double": "### Part 4 ``<svg onload=\"window.__pwned='PWN-labelsvg'\">``",
    "tex": "## Part 5 $\\href{javascript:window.__pwned='PWN-labeltex'}{x}$",
    "quote": "## Part 6 \" autofocus onfocus=\"window.__pwned='PWN-labelquote'\" x=\"",
}

MARKDOWN = {
    **{f"raw_{name}": f"My answer.\n\n{payload}\n\nMore text." for name, payload in HTML.items()},
    "md_link": "[see here](javascript:window.__pwned='PWN-mdlink')",
    "md_link_entity": "[see here](jav&#97;script:window.__pwned='PWN-mdent')",
    "md_link_escape": "[see here](javascript\\:window.__pwned='PWN-mdesc')",
    "md_link_case": "[see here](JaVaScRiPt:window.__pwned='PWN-mdcase')",
    "md_image": "![fig](javascript:window.__pwned='PWN-mdimg')",
    "md_reference": "[see][r]\n\n[r]: javascript:window.__pwned='PWN-mdref'",
    "md_autolink": "<javascript:window.__pwned='PWN-autolink'>",
    "md_data_link": "[x](data:text/html;base64,PHNjcmlwdD5QV048L3NjcmlwdD4=) PWN-data",
    "md_vbscript": "[x](vbscript:msgbox('PWN-vb'))",
    "mathjax_href": "$\\href{javascript:window.__pwned='PWN-mjhref'}{x}$",
    "mathjax_require": "$\\require{PWN-require}$ and $$\\class{PWN-class}{x}$$",
    "mathjax_bbox": "$\\bbox[background:url(http://127.0.0.1:9/PWN-bbox)]{x}$",
    "dollar_space": "$ <img src=x onerror=\"window.__pwned='PWN-dollar'\"> $",
    "code_span_mismatch": "``<img src=x onerror=\"window.__pwned='PWN-tick'\">`",
    "fence_unclosed": "```\n<img src=x onerror=\"window.__pwned='PWN-fence'\">",
    "html_in_list": "- item\n\n  <img src=x onerror=\"window.__pwned='PWN-list'\">",
    "html_in_quote": "> <script>window.__pwned='PWN-quote'</script>",
    "md_link_amp": "[see here](jav&amp;#97;script:window.__pwned='PWN-mdamp')",
    "md_image_remote": "![fig](http://127.0.0.1:9/PWN-mdbeacon.png)",
    "md_image_escaped": "\\\\![fig](http://127.0.0.1:9/PWN-mdbslash.png)",
    "mermaid": "```mermaid\ngraph TD\nA[\"<img src=x onerror=window.__pwned='PWN-mermaid'>\"]\n```",
    "entity_tag": "&lt;script&gt;PWN-entity-text&lt;/script&gt; and &#60;b&#62;",
    # code: spans and fences keep what is typed; the page must show it, never run it
    "code_span": "Use `<img src=x onerror=\"window.__pwned='PWN-codespan'\">` here",
    "code_span_double": "``<script>window.__pwned='PWN-codedouble'</script>``",
    "fence": "```\n<script>window.__pwned='PWN-fenced'</script>\n```",
    "fence_html": "```html\n<img src=x onerror=\"window.__pwned='PWN-fencehtml'\">\n```",
    "fence_tilde": "~~~\n<svg onload=\"window.__pwned='PWN-tilde'\">\n~~~",
    "indented_code": "text\n\n    <img src=x onerror=\"window.__pwned='PWN-indented'\">\n",
    # headings a feedback label could be made of (kit/feedback_labels.py)
    **{f"label_{name}": text for name, text in LABEL_HEADINGS.items()},
    # TeX macros MathJax would turn into links, styles or extensions
    "tex_newcommand": "$\\newcommand{\\x}[1]{\\href{#1}{y}}\\x{javascript:window.__pwned="
                      "'PWN-newcommand'}$",
    "tex_def": "$$\\def\\y{\\style{background:url(http://127.0.0.1:9/PWN-texdef)}{z}}\\y$$",
    "tex_env": "\\begin{align}\\href{javascript:window.__pwned='PWN-texenv'}{x}\\end{align}",
    "tex_unicode": "$\\unicode{<img src=x onerror=window.__pwned='PWN-texuni'>}$",
    # markdown links: data: pages, script URLs in angle brackets, titles that break out
    "md_data_html": "[x](data:text/html,<script>window.__pwned='PWN-mddata'</script>)",
    "md_js_angle": "[x](<javascript:window.__pwned='PWN-mdangle'>)",
    "md_title_break": "[x](http://a \"t\\\" onmouseover=window.__pwned='PWN-mdtitle' \")",
    "md_image_title": "![x](http://127.0.0.1:9/a.png \"\\\"><img src=x "
                      "onerror=window.__pwned='PWN-mdimgtitle'>\")",
}

#: Plain-text fields a page prints (a label, a grade id, a notebook's name, title, authors,
#: kernel name, a comment, a student id): each tries to leave the text or attribute it is
#: printed in, or to be read as markup, a script link or a MathJax macro.
FIELDS = {
    "tag": "<img src=x onerror=\"window.__pwned='PWN-fieldimg'\">",
    "close_attr": "\"><img src=x onerror=\"window.__pwned='PWN-fieldclose'\">",
    "dq_attr": "\" autofocus onfocus=\"window.__pwned='PWN-fielddq'\" x=\"",
    "sq_attr": "' autofocus onfocus='window.__pwned=\"PWN-fieldsq\"' x='",
    "title_break": "</title><script>window.__pwned='PWN-fieldtitle'</script>",
    "code_break": "</code></span><svg onload=\"window.__pwned='PWN-fieldsvg'\">",
    "code_span": "`<img src=x onerror=\"window.__pwned='PWN-fieldcode'\">`",
    "js_url": "javascript:window.__pwned='PWN-fieldjs'",
    "tex": "$\\href{javascript:window.__pwned='PWN-fieldtex'}{x}$",
    "comment": "<!--<img src=\"--><img src=x onerror=\"window.__pwned='PWN-fieldcomment'\">",
}

#: A written answer a TA must still be able to read after sanitising: (markdown, words that
#: must appear in the rendered text).
HONEST_ANSWER = (
    "Kernel PCA works with $K = \\Phi\\Phi^\\top$, and every eigenvalue satisfies "
    "$0 < \\lambda_i$ or $\\lambda_i = 0$.\n\n"
    "$$\\tilde K = K - \\mathbf{1}_n K - K \\mathbf{1}_n + \\mathbf{1}_n K \\mathbf{1}_n$$\n\n"
    "In code, `if n < 2: raise ValueError` guards it; also a<b & c > d, **bold**."
)
HONEST_WORDS = ("Kernel PCA works with", "\\lambda_i", "if n < 2: raise ValueError",
                "a<b & c > d", "\\tilde K")
